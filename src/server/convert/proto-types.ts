/**
 * The shapes of the protobuf objects that @grpc/proto-loader hands us and
 * accepts, for the fields tabletop reads or writes. Loader options (see
 * ../protos.ts): camelCase field names, int64 as decimal strings, enums as
 * names, bytes as Buffer, no defaults (unset fields are absent), and a virtual
 * string field naming the set member of each oneof.
 *
 * Requests are untrusted: every field is optional and converters check what
 * they need. These types never leave src/server/convert.
 */

/** int64 as the loader produces it (a decimal string) or as we write it. */
export type Int64 = string | number;
/** An enum value: its name, or its number when the name is unknown. */
export type Enum = string | number;

type Opt<T> = T | null | undefined;

// ---- google.protobuf ----
export interface PDuration {
  seconds?: Opt<Int64>;
  nanos?: Opt<number>;
}
export interface PTimestamp {
  seconds?: Opt<Int64>;
  nanos?: Opt<number>;
}
export interface PFieldMask {
  paths?: Opt<string[]>;
}
export interface PAny {
  type_url?: Opt<string>;
  value?: Opt<Buffer>;
  '@type'?: string;
  [field: string]: unknown;
}
export interface PStatus {
  code?: Opt<number>;
  message?: Opt<string>;
  details?: Opt<PAny[]>;
}

// ---- google.bigtable.v2 data ----
export interface PRowRange {
  startKeyClosed?: Opt<Buffer>;
  startKeyOpen?: Opt<Buffer>;
  endKeyOpen?: Opt<Buffer>;
  endKeyClosed?: Opt<Buffer>;
}
export interface PRowSet {
  rowKeys?: Opt<Buffer[]>;
  rowRanges?: Opt<PRowRange[]>;
}

export interface PColumnRange {
  familyName?: Opt<string>;
  startQualifierClosed?: Opt<Buffer>;
  startQualifierOpen?: Opt<Buffer>;
  endQualifierClosed?: Opt<Buffer>;
  endQualifierOpen?: Opt<Buffer>;
}
export interface PValueRange {
  startValueClosed?: Opt<Buffer>;
  startValueOpen?: Opt<Buffer>;
  endValueClosed?: Opt<Buffer>;
  endValueOpen?: Opt<Buffer>;
}
export interface PTimestampRange {
  startTimestampMicros?: Opt<Int64>;
  endTimestampMicros?: Opt<Int64>;
}

export interface PRowFilter {
  filter?: Opt<string>;
  chain?: Opt<{ filters?: Opt<PRowFilter[]> }>;
  interleave?: Opt<{ filters?: Opt<PRowFilter[]> }>;
  condition?: Opt<{ predicateFilter?: Opt<PRowFilter>; trueFilter?: Opt<PRowFilter>; falseFilter?: Opt<PRowFilter> }>;
  sink?: Opt<boolean>;
  passAllFilter?: Opt<boolean>;
  blockAllFilter?: Opt<boolean>;
  rowKeyRegexFilter?: Opt<Buffer>;
  rowSampleFilter?: Opt<number>;
  familyNameRegexFilter?: Opt<string>;
  columnQualifierRegexFilter?: Opt<Buffer>;
  columnRangeFilter?: Opt<PColumnRange>;
  timestampRangeFilter?: Opt<PTimestampRange>;
  valueRegexFilter?: Opt<Buffer>;
  valueRangeFilter?: Opt<PValueRange>;
  cellsPerRowOffsetFilter?: Opt<number>;
  cellsPerRowLimitFilter?: Opt<number>;
  cellsPerColumnLimitFilter?: Opt<number>;
  stripValueTransformer?: Opt<boolean>;
  applyLabelTransformer?: Opt<string>;
  valueBitmaskFilter?: Opt<{ mask?: Opt<Buffer> }>;
}

export interface PValue {
  kind?: Opt<string>;
  rawValue?: Opt<Buffer>;
  rawTimestampMicros?: Opt<Int64>;
  bytesValue?: Opt<Buffer>;
  stringValue?: Opt<string>;
  intValue?: Opt<Int64>;
}

export interface PMutation {
  mutation?: Opt<string>;
  setCell?: Opt<{ familyName?: Opt<string>; columnQualifier?: Opt<Buffer>; timestampMicros?: Opt<Int64>; value?: Opt<Buffer> }>;
  deleteFromColumn?: Opt<{ familyName?: Opt<string>; columnQualifier?: Opt<Buffer>; timeRange?: Opt<PTimestampRange> }>;
  deleteFromFamily?: Opt<{ familyName?: Opt<string> }>;
  deleteFromRow?: Opt<object>;
  addToCell?: Opt<PAggregateMutation>;
  mergeToCell?: Opt<PAggregateMutation>;
}
export interface PAggregateMutation {
  familyName?: Opt<string>;
  columnQualifier?: Opt<PValue>;
  timestamp?: Opt<PValue>;
  input?: Opt<PValue>;
}

export interface PReadModifyWriteRule {
  rule?: Opt<string>;
  familyName?: Opt<string>;
  columnQualifier?: Opt<Buffer>;
  appendValue?: Opt<Buffer>;
  incrementAmount?: Opt<Int64>;
}

export interface PReadRowsRequest {
  tableName?: Opt<string>;
  authorizedViewName?: Opt<string>;
  materializedViewName?: Opt<string>;
  appProfileId?: Opt<string>;
  rows?: Opt<PRowSet>;
  filter?: Opt<PRowFilter>;
  rowsLimit?: Opt<Int64>;
  requestStatsView?: Opt<Enum>;
  reversed?: Opt<boolean>;
}

export interface PSampleRowKeysRequest {
  tableName?: Opt<string>;
  authorizedViewName?: Opt<string>;
  materializedViewName?: Opt<string>;
  appProfileId?: Opt<string>;
  rowRange?: Opt<PRowRange>;
}
export interface PSampleRowKeysResponse {
  rowKey: Buffer;
  offsetBytes: Int64;
}

export interface PCheckAndMutateRowRequest {
  tableName?: Opt<string>;
  authorizedViewName?: Opt<string>;
  appProfileId?: Opt<string>;
  rowKey?: Opt<Buffer>;
  predicateFilter?: Opt<PRowFilter>;
  trueMutations?: Opt<PMutation[]>;
  falseMutations?: Opt<PMutation[]>;
}

export interface PReadModifyWriteRowRequest {
  tableName?: Opt<string>;
  authorizedViewName?: Opt<string>;
  appProfileId?: Opt<string>;
  rowKey?: Opt<Buffer>;
  rules?: Opt<PReadModifyWriteRule[]>;
}

export interface PPingAndWarmRequest {
  name?: Opt<string>;
  appProfileId?: Opt<string>;
}

export interface PCell {
  timestampMicros: Int64;
  value: Buffer;
  labels: string[];
}
export interface PColumn {
  qualifier: Buffer;
  cells: PCell[];
}
export interface PFamily {
  name: string;
  columns: PColumn[];
}
export interface PRow {
  key: Buffer;
  families: PFamily[];
}

// ---- google.bigtable.admin.v2 ----
export interface PGcRule {
  rule?: Opt<string>;
  maxNumVersions?: Opt<number>;
  maxAge?: Opt<PDuration>;
  intersection?: Opt<{ rules?: Opt<PGcRule[]> }>;
  union?: Opt<{ rules?: Opt<PGcRule[]> }>;
}

/** google.bigtable.admin.v2.Type: only the members tabletop understands are typed. */
export interface PType {
  kind?: Opt<string>;
  bytesType?: Opt<object>;
  int64Type?: Opt<object>;
  aggregateType?: Opt<PAggregateType>;
  [other: string]: unknown;
}
export interface PAggregateType {
  aggregator?: Opt<string>;
  inputType?: Opt<PType>;
  stateType?: Opt<PType>;
  sum?: Opt<object>;
  min?: Opt<object>;
  max?: Opt<object>;
  hllppUniqueCount?: Opt<object>;
}

export interface PColumnFamily {
  gcRule?: Opt<PGcRule>;
  valueType?: Opt<PType>;
}

export interface PClusterState {
  replicationState?: Enum;
  encryptionInfo?: object[];
}

export interface PTable {
  name?: Opt<string>;
  clusterStates?: Opt<Record<string, PClusterState>>;
  columnFamilies?: Opt<Record<string, PColumnFamily>>;
  granularity?: Opt<Enum>;
  restoreInfo?: Opt<object>;
  changeStreamConfig?: Opt<{ retentionPeriod?: Opt<PDuration> }>;
  deletionProtection?: Opt<boolean>;
  automatedBackupPolicy?: Opt<object>;
  tieredStorageConfig?: Opt<object>;
  rowKeySchema?: Opt<object>;
}

export interface PCreateTableRequest {
  parent?: Opt<string>;
  tableId?: Opt<string>;
  table?: Opt<PTable>;
  initialSplits?: Opt<{ key?: Opt<Buffer> }[]>;
}
export interface PListTablesRequest {
  parent?: Opt<string>;
  view?: Opt<Enum>;
  pageSize?: Opt<number>;
  pageToken?: Opt<string>;
}
export interface PGetTableRequest {
  name?: Opt<string>;
  view?: Opt<Enum>;
}
export interface PUpdateTableRequest {
  table?: Opt<PTable>;
  updateMask?: Opt<PFieldMask>;
  ignoreWarnings?: Opt<boolean>;
}
export interface PNameRequest {
  name?: Opt<string>;
}
export interface PModification {
  id?: Opt<string>;
  mod?: Opt<string>;
  create?: Opt<PColumnFamily>;
  update?: Opt<PColumnFamily>;
  drop?: Opt<boolean>;
  updateMask?: Opt<PFieldMask>;
}
export interface PModifyColumnFamiliesRequest {
  name?: Opt<string>;
  modifications?: Opt<PModification[]>;
  ignoreWarnings?: Opt<boolean>;
}
export interface PDropRowRangeRequest {
  name?: Opt<string>;
  target?: Opt<string>;
  rowKeyPrefix?: Opt<Buffer>;
  deleteAllDataFromTable?: Opt<boolean>;
}
export interface PCheckConsistencyRequest {
  name?: Opt<string>;
  consistencyToken?: Opt<string>;
}

export interface PInstance {
  name?: Opt<string>;
  displayName?: Opt<string>;
  state?: Opt<Enum>;
  type?: Opt<Enum>;
  edition?: Opt<Enum>;
  labels?: Opt<Record<string, string>>;
  createTime?: Opt<PTimestamp>;
}
export interface PCluster {
  name?: Opt<string>;
  location?: Opt<string>;
  state?: Opt<Enum>;
  serveNodes?: Opt<number>;
  nodeScalingFactor?: Opt<Enum>;
  clusterConfig?: Opt<object>;
  defaultStorageType?: Opt<Enum>;
  encryptionConfig?: Opt<object>;
}
export interface PAppProfile {
  name?: Opt<string>;
  etag?: Opt<string>;
  description?: Opt<string>;
  routingPolicy?: Opt<string>;
  multiClusterRoutingUseAny?: Opt<{ clusterIds?: Opt<string[]>; rowAffinity?: Opt<object> }>;
  singleClusterRouting?: Opt<{ clusterId?: Opt<string>; allowTransactionalWrites?: Opt<boolean> }>;
  isolation?: Opt<string>;
  priority?: Opt<Enum>;
  standardIsolation?: Opt<{ priority?: Opt<Enum> }>;
  dataBoostIsolationReadOnly?: Opt<object>;
}

export interface PCreateInstanceRequest {
  parent?: Opt<string>;
  instanceId?: Opt<string>;
  instance?: Opt<PInstance>;
  clusters?: Opt<Record<string, PCluster>>;
}
export interface PPartialUpdateInstanceRequest {
  instance?: Opt<PInstance>;
  updateMask?: Opt<PFieldMask>;
}
export interface PParentRequest {
  parent?: Opt<string>;
  pageToken?: Opt<string>;
  pageSize?: Opt<number>;
}
export interface PCreateClusterRequest {
  parent?: Opt<string>;
  clusterId?: Opt<string>;
  cluster?: Opt<PCluster>;
}
export interface PPartialUpdateClusterRequest {
  cluster?: Opt<PCluster>;
  updateMask?: Opt<PFieldMask>;
}
export interface PCreateAppProfileRequest {
  parent?: Opt<string>;
  appProfileId?: Opt<string>;
  appProfile?: Opt<PAppProfile>;
  ignoreWarnings?: Opt<boolean>;
}
export interface PUpdateAppProfileRequest {
  appProfile?: Opt<PAppProfile>;
  updateMask?: Opt<PFieldMask>;
  ignoreWarnings?: Opt<boolean>;
}

// ---- google.iam.v1 ----
export interface PPolicy {
  version?: Opt<number>;
  bindings?: Opt<object[]>;
  etag?: Opt<Buffer>;
  auditConfigs?: Opt<object[]>;
}
export interface PSetIamPolicyRequest {
  resource?: Opt<string>;
  policy?: Opt<PPolicy>;
}
export interface PTestIamPermissionsRequest {
  resource?: Opt<string>;
  permissions?: Opt<string[]>;
}

// ---- google.longrunning ----
export interface POperation {
  name: string;
  metadata?: PAny;
  done: boolean;
  error?: PStatus;
  response?: PAny;
}
export interface PListOperationsRequest {
  name?: Opt<string>;
  filter?: Opt<string>;
  pageSize?: Opt<number>;
  pageToken?: Opt<string>;
}

export interface PListHotTabletsRequest {
  parent?: Opt<string>;
  startTime?: Opt<PTimestamp>;
  endTime?: Opt<PTimestamp>;
  pageSize?: Opt<number>;
  pageToken?: Opt<string>;
}

// ---- google.bigtable.v2 SQL ----
export interface PPrepareQueryRequest {
  instanceName?: Opt<string>;
  appProfileId?: Opt<string>;
  query?: Opt<string>;
  dataFormat?: Opt<string>;
  protoFormat?: Opt<object>;
  paramTypes?: Opt<Record<string, PType>>;
}
export interface PPrepareQueryResponse {
  metadata: { protoSchema: { columns: { name: string; type: PType }[] } };
  preparedQuery: Buffer;
  validUntil: PTimestamp;
}
export interface PExecuteQueryRequest {
  instanceName?: Opt<string>;
  appProfileId?: Opt<string>;
  query?: Opt<string>;
  preparedQuery?: Opt<Buffer>;
  resumeToken?: Opt<Buffer>;
  params?: Opt<Record<string, import('./sql-value.js').PValue>>;
}

// ---- backups (google.bigtable.admin.v2) ----
export interface PBackup {
  name?: Opt<string>;
  sourceTable?: Opt<string>;
  sourceBackup?: Opt<string>;
  expireTime?: Opt<PTimestamp>;
  startTime?: Opt<PTimestamp>;
  endTime?: Opt<PTimestamp>;
  sizeBytes?: Opt<Int64>;
  state?: Opt<Enum>;
  encryptionInfo?: Opt<{ encryptionType?: Opt<Enum> }>;
  backupType?: Opt<Enum>;
  hotToStandardTime?: Opt<PTimestamp>;
}
export interface PBackupInfo {
  backup?: Opt<string>;
  startTime?: Opt<PTimestamp>;
  endTime?: Opt<PTimestamp>;
  sourceTable?: Opt<string>;
  sourceBackup?: Opt<string>;
}
export interface PCreateBackupRequest {
  parent?: Opt<string>;
  backupId?: Opt<string>;
  backup?: Opt<PBackup>;
}
export interface PUpdateBackupRequest {
  backup?: Opt<PBackup>;
  updateMask?: Opt<PFieldMask>;
}
export interface PListBackupsRequest {
  parent?: Opt<string>;
  filter?: Opt<string>;
  orderBy?: Opt<string>;
  pageSize?: Opt<number>;
  pageToken?: Opt<string>;
}
export interface PRestoreTableRequest {
  parent?: Opt<string>;
  tableId?: Opt<string>;
  backup?: Opt<string>;
}
export interface PCopyBackupRequest {
  parent?: Opt<string>;
  backupId?: Opt<string>;
  sourceBackup?: Opt<string>;
  expireTime?: Opt<PTimestamp>;
}
