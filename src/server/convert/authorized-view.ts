import type { AuthorizedViewInfo, AuthorizedViewSpec } from '../../db/api.js';
import type { SubsetView } from '../../model/authorized-view.js';
import { fromBytes, toBytes } from '../../model/bytes.js';
import { invalidArgument } from '../../model/errors.js';
import { tableNameString } from '../../model/names.js';

export { parseAuthorizedViewName } from '../../model/names.js';
import type { Enum, PFieldMask } from './proto-types.js';
import { maskPaths } from './table.js';

/** google.bigtable.admin.v2.AuthorizedView and its requests, as the loader decodes them (bytes as Buffers). */
type Opt<T> = T | null | undefined;

export interface PFamilySubsets {
  qualifiers?: Opt<Uint8Array[]>;
  qualifierPrefixes?: Opt<Uint8Array[]>;
}
export interface PSubsetView {
  rowPrefixes?: Opt<Uint8Array[]>;
  familySubsets?: Opt<Record<string, PFamilySubsets>>;
}
export interface PAuthorizedView {
  name?: Opt<string>;
  subsetView?: Opt<PSubsetView>;
  etag?: Opt<string>;
  deletionProtection?: Opt<boolean>;
}
export interface PCreateAuthorizedViewRequest {
  parent?: Opt<string>;
  authorizedViewId?: Opt<string>;
  authorizedView?: Opt<PAuthorizedView>;
}
export interface PGetAuthorizedViewRequest {
  name?: Opt<string>;
  view?: Opt<Enum>;
}
export interface PListAuthorizedViewsRequest {
  parent?: Opt<string>;
  pageSize?: Opt<number>;
  pageToken?: Opt<string>;
  view?: Opt<Enum>;
}
export interface PUpdateAuthorizedViewRequest {
  authorizedView?: Opt<PAuthorizedView>;
  updateMask?: Opt<PFieldMask>;
  ignoreWarnings?: Opt<boolean>;
}
export interface PDeleteAuthorizedViewRequest {
  name?: Opt<string>;
  etag?: Opt<string>;
}

/** AuthorizedView.ResponseView: how much of a view an answer carries. */
export type AuthorizedViewResponseView = 'NAME_ONLY' | 'BASIC' | 'FULL';

const RESPONSE_VIEWS: Readonly<Record<string, AuthorizedViewResponseView>> = {
  NAME_ONLY: 'NAME_ONLY',
  BASIC: 'BASIC',
  FULL: 'FULL',
  1: 'NAME_ONLY',
  2: 'BASIC',
  3: 'FULL',
};

/** A ResponseView; unspecified means the method's default (GetAuthorizedView: BASIC, ListAuthorizedViews: NAME_ONLY). */
export function responseViewFromProto(v: Enum | null | undefined, fallback: AuthorizedViewResponseView): AuthorizedViewResponseView {
  if (v == null || v === 'RESPONSE_VIEW_UNSPECIFIED' || v === 0) return fallback;
  const view = RESPONSE_VIEWS[String(v)];
  if (view === undefined) throw invalidArgument(`Unknown authorized view response view ${String(v)}`);
  return view;
}

export function authorizedViewName(info: AuthorizedViewInfo): string {
  return `${tableNameString(info.table)}/authorizedViews/${info.id}`;
}

export function subsetViewFromProto(s: PSubsetView): SubsetView {
  return {
    rowPrefixes: (s.rowPrefixes ?? []).map(fromBytes),
    familySubsets: Object.entries(s.familySubsets ?? {}).map(([family, f]) => ({
      family,
      qualifiers: (f.qualifiers ?? []).map(fromBytes),
      qualifierPrefixes: (f.qualifierPrefixes ?? []).map(fromBytes),
    })),
  };
}

export function subsetViewToProto(v: SubsetView): PSubsetView {
  const familySubsets: Record<string, PFamilySubsets> = {};
  for (const f of v.familySubsets) {
    familySubsets[f.family] = { qualifiers: f.qualifiers.map(toBytes), qualifierPrefixes: f.qualifierPrefixes.map(toBytes) };
  }
  return { rowPrefixes: v.rowPrefixes.map(toBytes), familySubsets };
}

export function authorizedViewToProto(info: AuthorizedViewInfo, view: AuthorizedViewResponseView): PAuthorizedView {
  const name = authorizedViewName(info);
  if (view === 'NAME_ONLY') return { name };
  const basic = { name, etag: info.etag, deletionProtection: info.deletionProtection };
  return view === 'BASIC' ? basic : { ...basic, subsetView: subsetViewToProto(info.subset) };
}

/** CreateAuthorizedView's view: a subset_view is required (the only kind of view); an etag given is ignored. */
export function authorizedViewSpecFromProto(v: PAuthorizedView | null | undefined): AuthorizedViewSpec {
  if (v == null) throw invalidArgument('CreateAuthorizedView: authorized_view is required');
  if (v.subsetView == null)
    throw invalidArgument('CreateAuthorizedView: authorized_view.subset_view is required (the only kind of authorized view)');
  return { subset: subsetViewFromProto(v.subsetView), deletionProtection: v.deletionProtection === true };
}

/**
 * UpdateAuthorizedView: the fields update_mask names (subset_view, deletion_protection); `*` replaces both,
 * unset ones included (an absent subset_view is then an empty one); an empty mask updates the fields the
 * request sets.
 */
export function authorizedViewUpdateFromProto(v: PAuthorizedView, mask: PFieldMask | null | undefined): Partial<AuthorizedViewSpec> {
  const paths = maskPaths(mask);
  const update: { -readonly [K in keyof AuthorizedViewSpec]?: AuthorizedViewSpec[K] } = {};
  const subset = (): SubsetView => subsetViewFromProto(v.subsetView ?? {});
  if (paths.length === 0) {
    if (v.subsetView != null) update.subset = subset();
    if (v.deletionProtection != null) update.deletionProtection = v.deletionProtection;
    if (Object.keys(update).length === 0) {
      throw invalidArgument('UpdateAuthorizedView: nothing to update (set update_mask, or subset_view / deletion_protection)');
    }
    return update;
  }
  for (const p of paths) {
    if (p === '*') {
      update.subset = subset();
      update.deletionProtection = v.deletionProtection === true;
    } else if (p === 'subset_view') update.subset = subset();
    else if (p === 'deletion_protection') update.deletionProtection = v.deletionProtection === true;
    else
      throw invalidArgument(
        `UpdateAuthorizedView: update_mask path "${p}" is not supported (supported: subset_view, deletion_protection, *)`,
      );
  }
  return update;
}
