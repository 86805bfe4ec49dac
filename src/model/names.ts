import { invalidArgument } from './errors.js';
import { LIMITS, TABLE_ID_RE } from './limits.js';

/**
 * Resource names of the Bigtable APIs:
 *   projects/{project}
 *   projects/{project}/instances/{instance}
 *   projects/{project}/instances/{instance}/tables/{table}
 *   projects/{project}/instances/{instance}/clusters/{cluster}
 *   projects/{project}/instances/{instance}/appProfiles/{appProfile}
 * Any project id is accepted (the Node client sends `{{projectId}}` when it has none).
 */
export interface InstanceName {
  readonly project: string;
  readonly instance: string;
}

export interface TableName extends InstanceName {
  readonly table: string;
}

export interface ChildName extends InstanceName {
  readonly id: string;
}

const SEGMENT = /^[^/]+$/;

/**
 * Table ids beginning with this belong to the database itself (a materialized view's data): no valid table id
 * begins with it, ListTables leaves them out, and a client's table name that names one is refused.
 */
export const INTERNAL_TABLE_PREFIX = '$';

function segment(what: string, value: string | undefined, full: string): string {
  if (value === undefined || !SEGMENT.test(value)) throw invalidArgument(`Invalid ${what} name: "${full}"`);
  return value;
}

export function parseProjectName(name: string): string {
  const parts = name.split('/');
  if (parts.length !== 2 || parts[0] !== 'projects') throw invalidArgument(`Invalid project name: "${name}"`);
  return segment('project', parts[1], name);
}

export function parseInstanceName(name: string): InstanceName {
  const parts = name.split('/');
  if (parts.length !== 4 || parts[0] !== 'projects' || parts[2] !== 'instances') {
    throw invalidArgument(`Invalid instance name: "${name}"; expected projects/{project}/instances/{instance}`);
  }
  return { project: segment('project', parts[1], name), instance: segment('instance', parts[3], name) };
}

export function parseTableName(name: string): TableName {
  const parts = name.split('/');
  if (parts.length !== 6 || parts[0] !== 'projects' || parts[2] !== 'instances' || parts[4] !== 'tables') {
    throw invalidArgument(`Invalid table name: "${name}"; expected projects/{project}/instances/{instance}/tables/{table}`);
  }
  const table = segment('table', parts[5], name);
  // The db's internal tables (a materialized view's data) are never named by clients.
  if (table.startsWith(INTERNAL_TABLE_PREFIX)) throw invalidArgument(`Invalid table name: "${name}"`);
  return { project: segment('project', parts[1], name), instance: segment('instance', parts[3], name), table };
}

/** Parses `projects/p/instances/i/{collection}/{id}`. */
export function parseChildName(
  name: string,
  collection: 'clusters' | 'appProfiles' | 'tables' | 'logicalViews' | 'materializedViews',
): ChildName {
  const parts = name.split('/');
  if (parts.length !== 6 || parts[0] !== 'projects' || parts[2] !== 'instances' || parts[4] !== collection) {
    throw invalidArgument(`Invalid name: "${name}"; expected projects/{project}/instances/{instance}/${collection}/{id}`);
  }
  return {
    project: segment('project', parts[1], name),
    instance: segment('instance', parts[3], name),
    id: segment(collection, parts[5], name),
  };
}

/** Parses `projects/p/instances/i/tables/t/authorizedViews/v`: the table and the view id. */
export function parseAuthorizedViewName(name: string): { readonly table: TableName; readonly id: string } {
  const parts = name.split('/');
  if (parts.length !== 8 || parts[6] !== 'authorizedViews') {
    throw invalidArgument(
      `Invalid authorized view name: "${name}"; expected projects/{project}/instances/{instance}/tables/{table}/authorizedViews/{authorized_view}`,
    );
  }
  return { table: parseTableName(parts.slice(0, 6).join('/')), id: segment('authorized view', parts[7], name) };
}

/** Parses `projects/p/instances/i/clusters/c/backups/b` (the cluster may be `-` only where a caller allows it). */
export function parseBackupName(name: string): InstanceName & { readonly cluster: string; readonly backup: string } {
  const parts = name.split('/');
  if (parts.length !== 8 || parts[0] !== 'projects' || parts[2] !== 'instances' || parts[4] !== 'clusters' || parts[6] !== 'backups') {
    throw invalidArgument(
      `Invalid backup name: "${name}"; expected projects/{project}/instances/{instance}/clusters/{cluster}/backups/{backup}`,
    );
  }
  return {
    project: segment('project', parts[1], name),
    instance: segment('instance', parts[3], name),
    cluster: segment('cluster', parts[5], name),
    backup: segment('backup', parts[7], name),
  };
}

export function backupNameString(n: InstanceName & { readonly cluster: string; readonly backup: string }): string {
  return `projects/${n.project}/instances/${n.instance}/clusters/${n.cluster}/backups/${n.backup}`;
}

export function instanceNameString(n: InstanceName): string {
  return `projects/${n.project}/instances/${n.instance}`;
}

export function tableNameString(n: TableName): string {
  return `projects/${n.project}/instances/${n.instance}/tables/${n.table}`;
}

export function childNameString(n: InstanceName, collection: string, id: string): string {
  return `projects/${n.project}/instances/${n.instance}/${collection}/${id}`;
}

/** Validates a table id for CreateTable. */
export function validateTableId(id: string): void {
  if (id.length === 0 || id.length > LIMITS.maxTableIdLength || !TABLE_ID_RE.test(id)) {
    throw invalidArgument(
      `Invalid table id "${id}": must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most ${LIMITS.maxTableIdLength} characters`,
    );
  }
}
