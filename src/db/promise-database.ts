import type { Database, DatabaseCore, RowReader } from './api.js';

/**
 * The public face of a database (api.ts): the core's methods, each
 * answering with a real Promise, even where the core answered at once, and
 * failing by rejecting it, even where the core threw; ReadRows's failures
 * arrive through the iteration. The servers call the core itself.
 */
export function promiseDatabase(core: DatabaseCore): Database {
  const c = core;
  return {
    createInstance: promised(c.createInstance.bind(c)),
    getInstance: promised(c.getInstance.bind(c)),
    listInstances: promised(c.listInstances.bind(c)),
    updateInstance: promised(c.updateInstance.bind(c)),
    deleteInstance: promised(c.deleteInstance.bind(c)),
    createCluster: promised(c.createCluster.bind(c)),
    getCluster: promised(c.getCluster.bind(c)),
    listClusters: promised(c.listClusters.bind(c)),
    updateCluster: promised(c.updateCluster.bind(c)),
    deleteCluster: promised(c.deleteCluster.bind(c)),
    createAppProfile: promised(c.createAppProfile.bind(c)),
    getAppProfile: promised(c.getAppProfile.bind(c)),
    listAppProfiles: promised(c.listAppProfiles.bind(c)),
    updateAppProfile: promised(c.updateAppProfile.bind(c)),
    deleteAppProfile: promised(c.deleteAppProfile.bind(c)),
    createLogicalView: promised(c.createLogicalView.bind(c)),
    getLogicalView: promised(c.getLogicalView.bind(c)),
    listLogicalViews: promised(c.listLogicalViews.bind(c)),
    updateLogicalView: promised(c.updateLogicalView.bind(c)),
    deleteLogicalView: promised(c.deleteLogicalView.bind(c)),
    createMaterializedView: promised(c.createMaterializedView.bind(c)),
    getMaterializedView: promised(c.getMaterializedView.bind(c)),
    listMaterializedViews: promised(c.listMaterializedViews.bind(c)),
    updateMaterializedView: promised(c.updateMaterializedView.bind(c)),
    deleteMaterializedView: promised(c.deleteMaterializedView.bind(c)),
    getIamPolicy: promised(c.getIamPolicy.bind(c)),
    setIamPolicy: promised(c.setIamPolicy.bind(c)),
    storedIamPolicy: promised(c.storedIamPolicy.bind(c)),
    createTable: promised(c.createTable.bind(c)),
    getTable: promised(c.getTable.bind(c)),
    listTables: promised(c.listTables.bind(c)),
    updateTable: promised(c.updateTable.bind(c)),
    deleteTable: promised(c.deleteTable.bind(c)),
    modifyColumnFamilies: promised(c.modifyColumnFamilies.bind(c)),
    dropRowRange: promised(c.dropRowRange.bind(c)),
    generateConsistencyToken: promised(c.generateConsistencyToken.bind(c)),
    checkConsistency: promised(c.checkConsistency.bind(c)),
    createAuthorizedView: promised(c.createAuthorizedView.bind(c)),
    getAuthorizedView: promised(c.getAuthorizedView.bind(c)),
    listAuthorizedViews: promised(c.listAuthorizedViews.bind(c)),
    updateAuthorizedView: promised(c.updateAuthorizedView.bind(c)),
    deleteAuthorizedView: promised(c.deleteAuthorizedView.bind(c)),
    createBackup: promised(c.createBackup.bind(c)),
    getBackup: promised(c.getBackup.bind(c)),
    listBackups: promised(c.listBackups.bind(c)),
    updateBackup: promised(c.updateBackup.bind(c)),
    deleteBackup: promised(c.deleteBackup.bind(c)),
    restoreTable: promised(c.restoreTable.bind(c)),
    copyBackup: promised(c.copyBackup.bind(c)),
    readRows: (name, request) => {
      try {
        return c.readRows(name, request);
      } catch (e) {
        return failedRead(e);
      }
    },
    sampleRowKeys: promised(c.sampleRowKeys.bind(c)),
    mutateRow: promised(c.mutateRow.bind(c)),
    mutateRows: promised(c.mutateRows.bind(c)),
    checkAndMutateRow: promised(c.checkAndMutateRow.bind(c)),
    readModifyWriteRow: promised(c.readModifyWriteRow.bind(c)),
    listTablets: promised(c.listTablets.bind(c)),
    listNodes: promised(c.listNodes.bind(c)),
    listHotTablets: promised(c.listHotTablets.bind(c)),
    close: promised(c.close.bind(c)),
  };
}

/** `method` answering with a promise of its answer: a throw rejects it. */
function promised<A extends unknown[], R>(method: (...args: A) => R): (...args: A) => Promise<Awaited<R>> {
  return (...args) => {
    try {
      return Promise.resolve(method(...args));
    } catch (e) {
      return Promise.reject(e);
    }
  };
}

/** A read that was refused: iterating it fails with `error`. */
function failedRead(error: unknown): RowReader {
  return {
    lastScannedKey: undefined,
    stats: { rowsSeen: 0, cellsSeen: 0, rowsReturned: 0, cellsReturned: 0 },
    close: () => undefined,
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }),
  };
}
