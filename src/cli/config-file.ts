import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { type Layer, SETTING_BY_NAME, envName, type RawValue } from './serve-settings.js';
import { closest } from './suggest.js';

/**
 * A config file for `tabletop serve` (`--config FILE` or TABLETOP_CONFIG):
 * TOML (`.toml`) or JSON (`.json`), whose top-level keys are the flags'
 * names without their dashes:
 *
 *   port = 8086
 *   data-dir = "/var/lib/tabletop"
 *   memtable-size = "64MiB"
 *   load-split-window = "10s"
 *   log-format = "json"
 *
 * An unknown key is an error that names the closest real one.
 */
export function readConfigFile(path: string): Layer {
  let source: string;
  try {
    source = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`config file ${path}: cannot read it: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  const ext = extname(path).toLowerCase();
  let parsed: unknown;
  try {
    if (ext === '.toml') parsed = parseToml(source);
    else if (ext === '.json') parsed = JSON.parse(source);
    else throw new Error('the name must end in .toml or .json, which says its format');
  } catch (e) {
    throw new Error(`config file ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`config file ${path}: must hold settings by name, such as port = 8086`);
  }
  const values = new Map<string, RawValue>();
  for (const [key, value] of Object.entries(parsed)) {
    if (!SETTING_BY_NAME.has(key)) {
      const near = closest(key, SETTING_BY_NAME.keys());
      throw new Error(
        `config file ${path}: unknown setting "${key}"${near === undefined ? '' : ` (did you mean "${near}"?)`}; settings are the flags of tabletop serve without their dashes`,
      );
    }
    if (typeof value === 'object' && value !== null)
      throw new Error(`config file ${path}: ${key} must be a single value, not a table or list`);
    values.set(key, value);
  }
  return { describe: (name) => `${name} in ${path}`, values };
}

/** The settings given by TABLETOP_* environment variables (empty ones count as unset). */
export function environmentLayer(env: Readonly<Record<string, string | undefined>>): Layer {
  const values = new Map<string, RawValue>();
  for (const name of SETTING_BY_NAME.keys()) {
    const v = env[envName(name)];
    if (v !== undefined && v !== '') values.set(name, v);
  }
  return { describe: (name) => envName(name), values };
}
