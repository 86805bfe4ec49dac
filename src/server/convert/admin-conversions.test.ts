import { describe, expect, it } from 'vitest';
import type { TableInfo } from '../../db/api.js';
import { loaderMethod } from '../testing/loader-codecs.js';
import { latin1Buffer as b, thrownCode as code, viaWire } from './testing/converter-checks.js';
import { gcRuleFromProto, gcRuleToProto } from './gc-rule.js';
import {
  appProfileSpecFromProto,
  appProfileUpdateFromProto,
  clusterSpecFromProto,
  clusterToProto,
  clusterUpdateFromProto,
  instanceSpecFromProto,
  instanceUpdateFromProto,
} from './instance.js';
import { operationToProto } from './operation.js';
import {
  createTableRequestFromProto,
  dropRowRangeFromProto,
  maskPaths,
  modificationFromProto,
  tableToProto,
  tableViewFromProto,
  updateTableRequestFromProto,
} from './table.js';
import { valueTypeFromProto, valueTypeToProto } from './value-type.js';

const TABLE_ADMIN = 'google.bigtable.admin.v2.BigtableTableAdmin';
const createTable = loaderMethod(TABLE_ADMIN, 'CreateTable');
const getTable = loaderMethod(TABLE_ADMIN, 'GetTable');
const getOperation = loaderMethod('google.longrunning.Operations', 'GetOperation');
const wire = viaWire(createTable);

const info: TableInfo = {
  name: { project: 'p', instance: 'i', table: 't' },
  families: [
    {
      name: 'z',
      gcRule: {
        kind: 'union',
        rules: [
          { kind: 'maxVersions', versions: 2 },
          { kind: 'maxAge', maxAgeMicros: 86_400_000_000 },
        ],
      },
      valueType: { kind: 'bytes' },
    },
    { name: 'a', gcRule: undefined, valueType: { kind: 'aggregate', aggregator: 'sum', input: 'int64' } },
  ],
  granularity: 'millis',
  deletionProtection: true,
  createTimeMillis: 1_700_000_000_123,
};

describe('GC rules', () => {
  it('round-trips every rule kind', () => {
    const rule = {
      kind: 'intersection',
      rules: [
        { kind: 'maxVersions', versions: 1 },
        { kind: 'union', rules: [{ kind: 'maxAge', maxAgeMicros: 1_500_000 }] },
      ],
    } as const;
    expect(gcRuleFromProto(gcRuleToProto(rule))).toEqual(rule);
  });
  it('treats an empty top-level rule as none and rejects an empty nested one', () => {
    expect(gcRuleFromProto({})).toBeUndefined();
    expect(gcRuleFromProto(undefined)).toBeUndefined();
    expect(code(() => gcRuleFromProto({ union: { rules: [{}] } }))).toBe('InvalidArgument');
  });
});

describe('value types', () => {
  it('maps aggregates both ways', () => {
    const sum = { aggregateType: { inputType: { int64Type: {} }, sum: {} } };
    expect(valueTypeFromProto(sum)).toEqual({ kind: 'aggregate', aggregator: 'sum', input: 'int64' });
    expect(valueTypeFromProto({ aggregateType: { inputType: { bytesType: {} }, hllppUniqueCount: {} } })).toEqual({
      kind: 'aggregate',
      aggregator: 'hll',
      input: 'bytes',
    });
    expect(valueTypeFromProto(valueTypeToProto({ kind: 'aggregate', aggregator: 'max', input: 'int64' }))).toEqual({
      kind: 'aggregate',
      aggregator: 'max',
      input: 'int64',
    });
    expect(valueTypeFromProto({ bytesType: {} })).toEqual({ kind: 'bytes' });
    expect(valueTypeToProto({ kind: 'bytes' })).toBeUndefined();
  });
  it('rejects types a family cannot have', () => {
    expect(code(() => valueTypeFromProto({ stringType: {} }))).toBe('InvalidArgument');
    expect(code(() => valueTypeFromProto({ aggregateType: { inputType: { bytesType: {} }, sum: {} } }))).toBe('InvalidArgument');
    expect(code(() => valueTypeFromProto({ aggregateType: { inputType: { int64Type: {} } } }))).toBe('InvalidArgument');
    expect(code(() => valueTypeFromProto({ aggregateType: { sum: {} } }))).toBe('InvalidArgument');
  });
});

describe('tables', () => {
  it('reads CreateTable: families in wire order, splits, protection, granularity', () => {
    const cmd = createTableRequestFromProto(
      wire({
        parent: 'projects/p/instances/i',
        tableId: 't',
        table: {
          columnFamilies: { zz: { gcRule: { maxNumVersions: 3 } }, aa: {} },
          granularity: 'TIMESTAMP_GRANULARITY_UNSPECIFIED',
          deletionProtection: true,
        },
        initialSplits: [{ key: b('m') }, { key: b('\xff') }],
      }),
    );
    expect(cmd.spec.families.map((f) => f.name)).toEqual(['zz', 'aa']);
    expect(cmd.spec.families[0]!.gcRule).toEqual({ kind: 'maxVersions', versions: 3 });
    expect(cmd.spec).toMatchObject({ initialSplits: ['m', '\xff'], deletionProtection: true });
    expect(
      code(() => createTableRequestFromProto(wire({ parent: 'projects/p/instances/i', tableId: 't', table: { changeStreamConfig: {} } }))),
    ).toBe('Unimplemented');
    expect(code(() => createTableRequestFromProto({ parent: 'projects/p/instances/i', tableId: 't', table: { granularity: 7 } }))).toBe(
      'InvalidArgument',
    );
    expect(code(() => createTableRequestFromProto({ tableId: 't' }))).toBe('InvalidArgument');
  });

  it('renders each view with only its fields, in a form protobufjs encodes', () => {
    const clusters = ['c1', 'c2'];
    const names = (view: Parameters<typeof tableToProto>[1]) => Object.keys(tableToProto(info, view, clusters)).sort();
    expect(names('NAME_ONLY')).toEqual(['name']);
    expect(names('SCHEMA_VIEW')).toEqual(['columnFamilies', 'granularity', 'name']);
    expect(names('REPLICATION_VIEW')).toEqual(['clusterStates', 'name']);
    expect(names('ENCRYPTION_VIEW')).toEqual(['clusterStates', 'name']);
    expect(names('FULL')).toEqual(['clusterStates', 'columnFamilies', 'deletionProtection', 'granularity', 'name']);
    const full = getTable.responseDeserialize(getTable.responseSerialize(tableToProto(info, 'FULL', clusters))) as Record<string, any>;
    expect(full['name']).toBe('projects/p/instances/i/tables/t');
    expect(Object.keys(full['columnFamilies'])).toEqual(['z', 'a']);
    expect(full['columnFamilies']['z']['gcRule']['union']['rules'][1]['maxAge']).toEqual({ seconds: '86400' });
    expect(full['columnFamilies']['a']['valueType']['aggregateType']).toHaveProperty('sum');
    expect(full['clusterStates']['c2']).toEqual({
      replicationState: 'READY',
      encryptionInfo: [{ encryptionType: 'GOOGLE_DEFAULT_ENCRYPTION' }],
    });
    expect(full['granularity']).toBe('MILLIS');
    expect(tableToProto(info, 'REPLICATION_VIEW', clusters).clusterStates!['c1']).toEqual({ replicationState: 'READY' });
  });

  it('defaults views per method and rejects unknown ones', () => {
    expect(tableViewFromProto(undefined, 'SCHEMA_VIEW')).toBe('SCHEMA_VIEW');
    expect(tableViewFromProto('VIEW_UNSPECIFIED', 'NAME_ONLY')).toBe('NAME_ONLY');
    expect(tableViewFromProto('FULL', 'NAME_ONLY')).toBe('FULL');
    expect(code(() => tableViewFromProto(42, 'NAME_ONLY'))).toBe('InvalidArgument');
  });

  it('lets UpdateTable change deletion_protection only', () => {
    const name = 'projects/p/instances/i/tables/t';
    expect(
      updateTableRequestFromProto({ table: { name, deletionProtection: true }, updateMask: { paths: ['deletion_protection'] } }),
    ).toMatchObject({ deletionProtection: true });
    expect(updateTableRequestFromProto({ table: { name }, updateMask: { paths: ['deletionProtection'] } })).toMatchObject({
      deletionProtection: false,
    });
    expect(code(() => updateTableRequestFromProto({ table: { name }, updateMask: { paths: [] } }))).toBe('InvalidArgument');
    expect(
      code(() => updateTableRequestFromProto({ table: { name }, updateMask: { paths: ['change_stream_config.retention_period'] } })),
    ).toBe('Unimplemented');
    expect(code(() => updateTableRequestFromProto({ table: { name }, updateMask: { paths: ['column_families'] } }))).toBe(
      'InvalidArgument',
    );
    expect(maskPaths({ paths: ['a_b,cD'] })).toEqual(['a_b', 'c_d']);
  });

  it('reads family modifications and their masks', () => {
    expect(modificationFromProto({ id: 'f', create: { gcRule: { maxNumVersions: 1 } } }).modification).toEqual({
      kind: 'create',
      family: 'f',
      gcRule: { kind: 'maxVersions', versions: 1 },
      valueType: { kind: 'bytes' },
    });
    expect(modificationFromProto({ id: 'f', update: {} }).modification).toEqual({
      kind: 'update',
      family: 'f',
      gcRule: undefined,
      updateGcRule: true,
    });
    expect(
      modificationFromProto({ id: 'f', update: { gcRule: { maxNumVersions: 2 } }, updateMask: { paths: ['gc_rule'] } }).modification,
    ).toMatchObject({ updateGcRule: true, gcRule: { kind: 'maxVersions', versions: 2 } });
    const typeOnly = modificationFromProto({
      id: 'f',
      update: { valueType: { aggregateType: { inputType: { int64Type: {} }, min: {} } } },
      updateMask: { paths: ['value_type'] },
    });
    expect(typeOnly.modification).toMatchObject({ updateGcRule: false });
    expect(typeOnly.requestedValueType).toEqual({ kind: 'aggregate', aggregator: 'min', input: 'int64' });
    expect(modificationFromProto({ id: 'f', drop: true }).modification).toEqual({ kind: 'drop', family: 'f' });
    expect(code(() => modificationFromProto({ id: 'f', drop: false }))).toBe('InvalidArgument');
    expect(code(() => modificationFromProto({ id: 'f' }))).toBe('InvalidArgument');
    expect(code(() => modificationFromProto({ create: {} }))).toBe('InvalidArgument');
    expect(code(() => modificationFromProto({ id: 'f', update: {}, updateMask: { paths: ['name'] } }))).toBe('InvalidArgument');
  });

  it('reads DropRowRange targets', () => {
    const name = 'projects/p/instances/i/tables/t';
    expect(dropRowRangeFromProto({ name, rowKeyPrefix: b('pre') }).target).toEqual({ kind: 'prefix', prefix: 'pre' });
    expect(dropRowRangeFromProto({ name, deleteAllDataFromTable: true }).target).toEqual({ kind: 'all' });
    expect(code(() => dropRowRangeFromProto({ name, rowKeyPrefix: b('') }))).toBe('InvalidArgument');
    expect(code(() => dropRowRangeFromProto({ name, deleteAllDataFromTable: false }))).toBe('InvalidArgument');
    expect(code(() => dropRowRangeFromProto({ name }))).toBe('InvalidArgument');
  });
});

describe('instances, clusters, app profiles', () => {
  it('reads specs with defaults', () => {
    expect(instanceSpecFromProto({ type: 'DEVELOPMENT', labels: { a: 'b' } }, 'my-inst')).toEqual({
      displayName: 'my-inst',
      type: 'development',
      labels: { a: 'b' },
    });
    expect(clusterSpecFromProto({ location: 'projects/p/locations/z', serveNodes: 3, defaultStorageType: 'HDD' }, 'c')).toEqual({
      location: 'projects/p/locations/z',
      serveNodes: 3,
      storageType: 'hdd',
    });
    expect(code(() => clusterSpecFromProto({}, 'c'))).toBe('InvalidArgument');
    // cbt sends an empty encryption_config; only a KMS key is unsupported.
    expect(clusterSpecFromProto({ location: 'l', encryptionConfig: {} }, 'c').location).toBe('l');
    expect(
      code(() =>
        clusterSpecFromProto({ location: 'l', encryptionConfig: { kmsKeyName: 'projects/p/locations/l/keyRings/r/cryptoKeys/k' } }, 'c'),
      ),
    ).toBe('Unimplemented');
    expect(
      appProfileSpecFromProto(
        { singleClusterRouting: { clusterId: 'c1', allowTransactionalWrites: true }, standardIsolation: { priority: 'PRIORITY_HIGH' } },
        'ap',
      ),
    ).toEqual({
      description: '',
      routing: { kind: 'singleCluster', clusterId: 'c1', allowTransactionalWrites: true },
      priority: 'high',
    });
    expect(code(() => appProfileSpecFromProto({ description: 'x' }, 'ap'))).toBe('InvalidArgument');
    expect(code(() => appProfileSpecFromProto({ multiClusterRoutingUseAny: {}, dataBoostIsolationReadOnly: {} }, 'ap'))).toBe(
      'Unimplemented',
    );
  });

  it('applies update masks', () => {
    expect(instanceUpdateFromProto({ displayName: 'D', labels: { x: 'y' } }, { paths: ['labels'] })).toEqual({ labels: { x: 'y' } });
    expect(code(() => instanceUpdateFromProto({}, { paths: ['state'] }))).toBe('InvalidArgument');
    expect(code(() => instanceUpdateFromProto({}, { paths: [] }))).toBe('InvalidArgument');
    expect(clusterUpdateFromProto({ serveNodes: 5 }, { paths: ['serve_nodes'] })).toEqual({ serveNodes: 5 });
    expect(code(() => clusterUpdateFromProto({ location: 'x' }, { paths: ['location'] }))).toBe('InvalidArgument');
    expect(code(() => clusterUpdateFromProto({ serveNodes: 5 }, { paths: ['cluster_config.autoscaling'] }))).toBe('InvalidArgument');
    // Setting serve_nodes and clearing autoscaling, as cbt updatecluster and the Node client's setMetadata({ nodes }) do.
    expect(clusterUpdateFromProto({ serveNodes: 5 }, { paths: ['serve_nodes', 'cluster_config.cluster_autoscaling_config'] })).toEqual({
      serveNodes: 5,
      autoscaling: null,
    });
  });

  it('reads autoscaling configs and the update-mask paths the clients send for them', () => {
    const config = (min: number, max: number, cpu: number, storage?: number) => ({
      clusterConfig: {
        clusterAutoscalingConfig: {
          autoscalingLimits: { minServeNodes: min, maxServeNodes: max },
          autoscalingTargets: { cpuUtilizationPercent: cpu, ...(storage === undefined ? {} : { storageUtilizationGibPerNode: storage }) },
        },
      },
    });
    const spec = { minServeNodes: 2, maxServeNodes: 6, cpuUtilizationPercent: 60, storageUtilizationGibPerNode: 0 };
    // CreateCluster: autoscaled clusters start from min_serve_nodes unless serve_nodes says otherwise.
    expect(clusterSpecFromProto({ location: 'l', ...config(2, 6, 60) }, 'c')).toEqual({
      location: 'l',
      serveNodes: 2,
      storageType: 'ssd',
      autoscaling: spec,
    });
    expect(clusterSpecFromProto({ location: 'l', serveNodes: 4, ...config(2, 6, 60, 3000) }, 'c')).toMatchObject({
      serveNodes: 4,
      autoscaling: { ...spec, storageUtilizationGibPerNode: 3000 },
    });
    // The whole config (the Go client's SetAutoscaling).
    expect(clusterUpdateFromProto(config(2, 6, 60), { paths: ['cluster_config.cluster_autoscaling_config'] })).toEqual({
      autoscaling: spec,
    });
    // Leaf paths (the Node client's setMetadata({ minServeNodes, maxServeNodes, cpuUtilizationPercent })) set only what they name.
    const leaves = [
      'autoscaling_limits.min_serve_nodes',
      'autoscaling_limits.max_serve_nodes',
      'autoscaling_targets.cpu_utilization_percent',
    ];
    expect(
      clusterUpdateFromProto(config(2, 6, 60, 4000), { paths: leaves.map((l) => `cluster_config.cluster_autoscaling_config.${l}`) }),
    ).toEqual({
      autoscaling: { minServeNodes: 2, maxServeNodes: 6, cpuUtilizationPercent: 60 },
    });
    expect(
      clusterUpdateFromProto(config(2, 6, 60, 4000), { paths: ['cluster_config.cluster_autoscaling_config.autoscaling_targets'] }),
    ).toEqual({
      autoscaling: { cpuUtilizationPercent: 60, storageUtilizationGibPerNode: 4000 },
    });
    expect(
      clusterUpdateFromProto(config(2, 6, 60), {
        paths: ['cluster_config.cluster_autoscaling_config.autoscaling_limits', 'cluster_config'],
      }),
    ).toEqual({ autoscaling: spec });
    expect(
      code(() => clusterUpdateFromProto({}, { paths: ['cluster_config', 'cluster_config.cluster_autoscaling_config.autoscaling_limits'] })),
    ).toBe('InvalidArgument');
    // UpdateCluster (no mask) cannot change autoscaling, as the proto says.
    expect(code(() => clusterUpdateFromProto({ serveNodes: 3, ...config(2, 6, 60) }, undefined))).toBe('InvalidArgument');
    expect(
      clusterToProto({
        instance: { project: 'p', instance: 'i' },
        id: 'c',
        location: 'l',
        serveNodes: 3,
        storageType: 'ssd',
        autoscaling: { ...spec, storageUtilizationGibPerNode: 2560 },
      }),
    ).toEqual({
      name: 'projects/p/instances/i/clusters/c',
      location: 'l',
      state: 'READY',
      serveNodes: 3,
      defaultStorageType: 'SSD',
      ...config(2, 6, 60, 2560),
    });
    expect(appProfileUpdateFromProto({ description: 'new' }, { paths: ['description'] }, 'ap')).toEqual({ description: 'new' });
  });
});

describe('operations', () => {
  it('packs the result and metadata as Any with the right type URLs', () => {
    const op = operationToProto({
      name: 'projects/p/instances/i/tables/t/operations/1',
      result: { kind: 'table', table: info },
      metadataType: 'UpdateTableMetadata',
      startMillis: 1000,
      endMillis: 2000,
    });
    const decoded = getOperation.responseDeserialize(getOperation.responseSerialize(op)) as {
      done: boolean;
      response: { type_url: string; value: Buffer };
      metadata: { type_url: string; value: Buffer };
    };
    expect(decoded.done).toBe(true);
    expect(decoded.response.type_url).toBe('type.googleapis.com/google.bigtable.admin.v2.Table');
    expect(decoded.metadata.type_url).toBe('type.googleapis.com/google.bigtable.admin.v2.UpdateTableMetadata');
    const table = getTable.responseDeserialize(decoded.response.value) as {
      name: string;
      deletionProtection: boolean;
      columnFamilies: object;
    };
    expect(table).toMatchObject({ name: 'projects/p/instances/i/tables/t', deletionProtection: true });
    expect(Object.keys(table.columnFamilies)).toEqual(['z', 'a']);
  });
});
