import { Command, CommanderError, Option } from 'commander';
import { type RunningServer, VERSION, startServer } from '../index.js';
import { isTabletopError } from '../model/errors.js';
import type { Logger } from '../server/logger.js';
import { formatMillis } from '../units.js';
import { environmentLayer, readConfigFile } from './config-file.js';
import { createLogOutput } from './log-output.js';
import { checkRe2Addon } from '../model/filter/index.js';
import { missingServerFlags } from './node-flags.js';
import {
  CONFIG_ENV,
  type Layer,
  type RawValue,
  SERVE_SETTINGS,
  type ServeSettings,
  envName,
  resolveServeSettings,
} from './serve-settings.js';
import type { CliIo } from './cli-io.js';
import { tabletsCommand } from './tablets-command.js';
import { type AdviseOptions, adviseCommand, wrapText } from './advise-command.js';
import { type SqlOptions, sqlCommand } from './sql-command.js';
import { TRANSFORM_GRAMMAR } from '../insight/advisor/simulate/index.js';
import {
  type AuthFileOptions,
  createTokenCommand,
  grantCommand,
  listGrantsCommand,
  listTokensCommand,
  revokeTokenCommand,
} from './auth-command.js';
import { type ServeSecurity, serveSecurity } from './serve-security.js';
import type { CopyOptions } from './copy-command.js';
import type { DataStreams, ExportOptions, ImportOptions } from './export-command.js';
import type { ApplyOptions, DumpOptions } from './schema-command.js';

/**
 * The `tabletop` command line. `runCli` is the whole program with its outside
 * world injected (output streams, signals, environment), so that tests can
 * drive it. Parsing, help (`tabletop help [command]`, `--help`) and "did you
 * mean" suggestions for mistyped flags come from commander; the settings of
 * `serve` (flags, TABLETOP_* variables, config-file keys) from
 * serve-settings.ts.
 *
 * Exit codes: 0 done (`advise` whatever its findings), 1 the command failed (the server could not start, the
 * HTTP API could not be reached), 2 the command line (or the settings) were
 * wrong.
 *
 * Contract with tools and tests: once `serve` is listening, stdout carries a
 * line exactly `export BIGTABLE_EMULATOR_HOST=<host>:<port>` and a line
 * `HTTP: http://<host>:<httpPort>/` (with the real ports when 0 was asked
 * for); over TLS, instead, `gRPC: grpcs://<host>:<port> (TLS...)` and
 * `HTTP: https://<host>:<httpPort>/`. Everything else (logs) goes to stderr.
 */

/** Runs the command line; resolves with the process exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let code = 0;
  const program = buildProgram(io, (c) => (code = c));
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    // Help and version asked for exit 0; `tabletop` alone prints help on stderr and is a usage error.
    return e.exitCode === 0 ? 0 : 2;
  }
  return code;
}

function buildProgram(io: CliIo, exit: (code: number) => void): Command {
  const program = new Command('tabletop');
  const configure = (cmd: Command): Command =>
    cmd
      .exitOverride()
      .configureOutput({
        writeOut: (s) => io.stdout(s.trimEnd()),
        writeErr: (s) => io.stderr(s.trimEnd()),
        // "tabletop serve: unknown option ...", as the errors of the settings read.
        outputError: (s, write) => write(s.replace(/^error: /, `${cmd === program ? 'tabletop' : `tabletop ${cmd.name()}`}: `)),
      })
      .showHelpAfterError(`(run "tabletop help${cmd === program ? '' : ` ${cmd.name()}`}" for usage)`)
      .configureHelp({ sortOptions: false, helpWidth: 100 });
  configure(program)
    .description('A Bigtable-compatible database: the Cloud Bigtable APIs over gRPC, a durable engine, and schema insight.')
    .version(`tabletop ${VERSION}`, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [command]', 'show help for a command')
    .addHelpText(
      'after',
      '\nPoint the official clients (Node, Go, Java, Python, cbt) at the server with the line `serve` prints:\n  export BIGTABLE_EMULATOR_HOST=localhost:8086',
    );

  const serve = configure(program.command('serve'))
    .description('Serve the Cloud Bigtable APIs over gRPC, and an HTTP server (index page, JSON API, Prometheus /metrics).')
    .usage('[options]');
  const flags = new Map<string, Option>();
  for (const s of SERVE_SETTINGS) {
    const option = new Option(
      s.arg === undefined ? `--${s.name}` : `--${s.name} <${s.arg}>`,
      `${s.help} (${s.defaultText === undefined ? '' : `default ${s.defaultText}; `}env ${envName(s.name)})`,
    ).helpGroup(`${s.group}:`);
    serve.addOption(option);
    flags.set(s.name, option);
  }
  serve
    .addOption(
      new Option(
        '--config <file>',
        `read settings from a TOML or JSON file: its keys are these flags without "--" (env ${CONFIG_ENV})`,
      ).helpGroup('Server:'),
    )
    .addHelpText(
      'after',
      [
        '',
        'Sizes take a KiB/MiB/GiB suffix (64MiB); durations a unit (500ms, 30s, 5m).',
        'The command line wins over TABLETOP_* variables, which win over the config file, which wins over the defaults.',
        'Example config file (tabletop.toml):',
        '  port = 8086',
        '  data-dir = "/var/lib/tabletop"',
        '  split-size = "1MiB"',
        '  log-format = "json"',
      ].join('\n'),
    )
    .action(async (opts: Record<string, unknown>) => {
      const given = new Map<string, RawValue>();
      for (const [name, option] of flags) {
        const v = opts[option.attributeName()];
        if (v !== undefined) given.set(name, v);
      }
      const cli: Layer = { describe: (name) => `--${name}`, values: given };
      exit(await runServe(cli, typeof opts.config === 'string' ? opts.config : undefined, io));
    });

  const auth = configure(program.command('auth'))
    .description(
      'Manage who may call a server: tokens (create-token, list-tokens, revoke-token) and bootstrap grants (grant, revoke, list-grants), in its auth file (<data-dir>/auth.json). A running server applies changes within a second.',
    )
    .usage('<command> [options]');
  const fileOptions = (cmd: Command): Command =>
    cmd
      .option('--data-dir <dir>', "the server's data directory; the auth file is <dir>/auth.json (default ./data, env TABLETOP_DATA_DIR)")
      .option('--auth-file <file>', 'the auth file itself (for --in-memory servers; env TABLETOP_AUTH_FILE)');
  fileOptions(configure(auth.command('create-token')))
    .description('Make a token for a member and print it (once: only its hash is kept).')
    .requiredOption('--member <member>', 'who the token proves: user:EMAIL or serviceAccount:EMAIL')
    .option('--expires <when>', 'a duration (12h, 30d) or a date (2027-01-31); default: never')
    .option('--description <text>', 'what the token is for (shown by list-tokens)')
    .action((opts: AuthFileOptions & { member: string; expires?: string; description?: string }) => {
      exit(createTokenCommand(opts, io));
    });
  fileOptions(configure(auth.command('list-tokens')))
    .description('List the tokens: id, member, creation, expiry, description (never the secrets).')
    .option('--json', 'print JSON')
    .action((opts: AuthFileOptions & { json?: boolean }) => {
      exit(listTokensCommand(opts, io));
    });
  fileOptions(configure(auth.command('revoke-token')))
    .description('Revoke a token: a running server refuses it within a second.')
    .argument('<id>', 'the token id (tt_...) that list-tokens shows')
    .action((id: string, opts: AuthFileOptions) => {
      exit(revokeTokenCommand(id, opts, io));
    });
  for (const [name, grant] of [
    ['grant', true],
    ['revoke', false],
  ] as const) {
    fileOptions(configure(auth.command(name)))
      .description(
        grant
          ? 'Grant a member a role on a project (or every project): the bindings the IAM checks start from, before any policy is set through the API.'
          : 'Take back a role that grant gave.',
      )
      .requiredOption(
        '--member <member>',
        'user:EMAIL, serviceAccount:EMAIL, group:EMAIL, domain:DOMAIN, allUsers or allAuthenticatedUsers',
      )
      .requiredOption('--role <role>', 'e.g. roles/bigtable.admin, roles/bigtable.user, roles/bigtable.reader, roles/bigtable.viewer')
      .option('--project <project>', 'the project; default every project')
      .action((opts: AuthFileOptions & { member: string; role: string; project?: string }) => {
        exit(grantCommand(opts, io, grant));
      });
  }
  fileOptions(configure(auth.command('list-grants')))
    .description('List the grants that grant made.')
    .action((opts: AuthFileOptions) => {
      exit(listGrantsCommand(opts, io));
    });

  configure(program.command('repair'))
    .description(
      'Start a data directory past damage in the middle of a commit log (a normal start refuses it with DATA_LOSS): every intact record is replayed, each damaged one is skipped and reported, and the logs are first copied, as they were, to <data-dir>/repair-<time>/. Never beside a running server (the directory is locked).',
    )
    .option('--data-dir <dir>', 'the data directory (default ./data, env TABLETOP_DATA_DIR)')
    .action(async (opts: { dataDir?: string }) => {
      exit(await (await import('./repair-command.js')).repairCommand(opts, io));
    });

  configure(program.command('tablets'))
    .description(
      "Print the tablets of a table (key range, size, rows, node, recent load) from a running server's HTTP API, and flag single-row hotspots.",
    )
    .usage('<table> --project <project> --instance <instance> [--server <host:port>]')
    .argument('<table>', 'table id, or its full name projects/P/instances/I/tables/T (which gives the project and instance)')
    .option('--project <project>', 'project of the table (required unless <table> is a full name)')
    .option('--instance <instance>', 'instance of the table (required unless <table> is a full name)')
    .option('--server <host:port>', "address of the server's HTTP port", 'localhost:8087')
    .action(async (table: string, opts: { project?: string; instance?: string; server: string }) => {
      exit(await tabletsCommand([table], { project: opts.project, instance: opts.instance, server: opts.server }, io));
    });

  configure(program.command('sql'))
    .description('Run a GoogleSQL query on a running server (its HTTP API) and print the result as a table.')
    .usage('"<query>" [--param <name=TYPE:value>]... [--json] [--project <project> --instance <instance>] [--server <host:port>]')
    .argument('<query>', 'the query, e.g. "SELECT _key, cf[\'q\'] AS q FROM t LIMIT 10"')
    .option(
      '--param <name=TYPE:value>',
      'a value for @name in the query (repeatable); TYPE one of INT64, FLOAT64, FLOAT32, BOOL, STRING, BYTES, TIMESTAMP, DATE, or ARRAY<TYPE>',
      (flag: string, given: string[] = []) => [...given, flag],
    )
    .option('--json', 'print the JSON of the HTTP API (POST .../sql) instead of a table')
    .option('--server <host:port>', "address of the server's HTTP port", 'localhost:8087')
    .option('--project <project>', "the instance's project (default: the server's only instance)")
    .option('--instance <instance>', "the instance (default: the server's only instance, or the only one of --project)")
    .addHelpText(
      'after',
      [
        '',
        'Parameters, e.g.:',
        '  --param id=STRING:user1  --param n=INT64:3  --param ok=BOOL:true  --param x=FLOAT64:1.5',
        '  --param k=BYTES:user#1 (its UTF-8)  --param k=BYTES:base64:AAEC  --param k=BYTES:hex:00ff',
        '  --param at=TIMESTAMP:2024-06-01T12:00:00Z (no zone: UTC)  --param d=DATE:2024-06-01',
        '  --param ids=\'ARRAY<STRING>:["a","b"]\' (a JSON array)',
        'For instance: tabletop sql "SELECT _key, cf FROM t WHERE STARTS_WITH(_key, @p) LIMIT @n" --param p=BYTES:user# --param n=INT64:10',
      ].join('\n'),
    )
    .action(async (query: string, opts: SqlOptions) => {
      exit(await sqlCommand(query, opts, io));
    });

  configure(program.command('advise'))
    .description(
      "Print the schema advisor's findings (row-key and schema anti-patterns, with evidence and a fix in your own keys) for an instance or one table, from a running server's HTTP API; or, with --simulate, show a key transformation's effect on tablet and node load.",
    )
    .usage('[--table <table>] [--json] [--simulate <transform> [--nodes <n>]] [options]')
    .option('--table <table>', 'advice for this table only: its id, or its full name projects/P/instances/I/tables/T')
    .option('--json', 'print the JSON of the HTTP API (GET .../advice or .../simulate) instead of text')
    .option('--server <host:port>', "address of the server's HTTP port", 'localhost:8087')
    .option('--project <project>', "the instance's project (default: the server's only instance)")
    .option('--instance <instance>', "the instance (default: the server's only instance, or the only one of --project)")
    .option(
      '--simulate <transform>',
      "replay the table's sampled keys and recorded traffic under a key transformation and show tablet and node load before and after (needs --table)",
    )
    .option('--nodes <n>', "nodes to simulate (default: the node count of the instance's first cluster)")
    .addHelpText(
      'after',
      [
        '',
        'Findings are grouped by severity (danger, warning, info); the exit code is 0 whatever they are (1: the server',
        'could not be reached or answered an error; 2: a bad command line).',
        '',
        ...wrapText(TRANSFORM_GRAMMAR, '', '  '),
        'For instance: tabletop advise --table events --simulate promote:2',
      ].join('\n'),
    )
    .action(async (opts: AdviseOptions) => {
      exit(await adviseCommand(opts, io));
    });
  const schema = configure(program.command('schema'))
    .description(
      "Schema as code: dump an instance's tables (or one table) as a JSON file, and apply one: show the changes, ask before destructive ones, make them.",
    )
    .usage('dump|apply [options]');
  const target = (cmd: Command): Command =>
    cmd
      .requiredOption('--project <project>', 'the project')
      .requiredOption('--instance <instance>', 'the instance')
      .option(
        '--endpoint <address>',
        'host:port (plain text), grpcs://host:port (TLS, TABLETOP_TOKEN sent if set) or cloud (Cloud Bigtable, application-default credentials); default $BIGTABLE_EMULATOR_HOST or localhost:8086',
      );
  target(configure(schema.command('dump')))
    .description("Print the schema of an instance's tables (families, GC rules, types, deletion protection, splits, authorized views).")
    .option('--table <table>', 'one table only (a table file)')
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--no-splits', 'leave out the splits (the keys SampleRowKeys returns)')
    .action(async (opts: DumpOptions) => {
      exit(await (await schemaCommands()).schemaDumpCommand(opts, io));
    });
  target(configure(schema.command('apply')))
    .description(
      'Make the server match a schema file: prints the changes, asks before destructive ones (drops, deletes, GC rules that collect more), then makes them. An instance file also deletes the tables it does not list.',
    )
    .argument('<file>', 'a schema file (from schema dump, or written by hand)')
    .option('--table <table>', "apply only this table of the file (or a table file's schema to this table)")
    .option('--dry-run', 'show the changes, make none')
    .option('--yes', 'make destructive changes without asking (for scripts)')
    .action(async (file: string, opts: ApplyOptions) => {
      exit(await (await schemaCommands()).schemaApplyCommand(file, opts, io));
    });
  addDataCommands(program, configure, io, exit);
  return program;
}

/** The schema commands, loaded when run: the official client they use costs every other command its start-up time. */
function schemaCommands(): Promise<typeof import('./schema-command.js')> {
  return import('./schema-command.js');
}

const TABLE_SPEC_HELP = [
  '',
  'A table is [grpcs://]HOST:PORT/projects/P/instances/I/tables/T (a tabletop server or cbtemulator; grpcs:// for TLS,',
  'with TABLETOP_CA_FILE for a private CA), or projects/P/instances/I/tables/T: the server in BIGTABLE_EMULATOR_HOST',
  'if set, else Cloud Bigtable with application-default credentials. TABLETOP_TOKEN is sent as a bearer token over TLS.',
].join('\n');

/**
 * `tabletop copy`, `export` and `import`: moving data through the Bigtable API (README "Moving data"). Their
 * modules (and the official client they use) load only when one of them runs, so that `serve` starts without them.
 */
function addDataCommands(program: Command, configure: (c: Command) => Command, io: CliIo, exit: (code: number) => void): void {
  const streams = (): DataStreams => io.data ?? { stdout: process.stdout, stdin: process.stdin };
  configure(program.command('copy'))
    .description(
      "Copy a table's schema and every cell version between two Bigtable API endpoints, in parallel over the source's SampleRowKeys ranges; resumable, rate-limited, verified by counts and a checksum.",
    )
    .requiredOption('--from <table>', 'the source table')
    .requiredOption('--to <table>', "the destination table (created with the source's families and splits if missing)")
    .option('--state <file>', 'the file of finished ranges that makes a rerun resume (default ./tabletop-copy-<hash>.json)')
    .option('--parallel <n>', 'ranges copied at once', '4')
    .option('--max-rows-per-second <n>', 'write at most this many rows a second')
    .option('--max-mib-per-second <n>', 'write at most this many MiB a second')
    .option('--no-verify', 'skip reading both tables at the end to compare counts and checksums')
    .addHelpText('after', TABLE_SPEC_HELP)
    .action(async (opts: CopyOptions) => {
      exit(await withClient('copy', io, async () => (await import('./copy-command.js')).copyCommand(opts, io)));
    });
  configure(program.command('export'))
    .description('Write every cell version of a table, with its timestamp, as JSON lines, CSV or a length-prefixed binary file.')
    .argument('<table>', 'the table')
    .option('--format <format>', 'jsonl, csv or seqfile (default: from the --output extension, else jsonl)')
    .option('--output <file>', 'the file to write (default stdout)')
    .addHelpText('after', TABLE_SPEC_HELP)
    .action(async (table: string, opts: ExportOptions) => {
      exit(await withClient('export', io, async () => (await import('./export-command.js')).exportCommand(table, opts, io, streams())));
    });
  configure(program.command('import'))
    .description(
      'Write the cells of an export into a table with their timestamps (idempotent); bad records are reported with their line numbers and skipped.',
    )
    .argument('<file>', 'the export (- for stdin)')
    .argument('<table>', 'the table (its families must exist)')
    .option('--format <format>', 'jsonl, csv or seqfile (default: from the file extension, else jsonl)')
    .option('--strict', 'stop at the first bad record')
    .option('--max-rows-per-second <n>', 'write at most this many rows a second')
    .addHelpText('after', TABLE_SPEC_HELP)
    .action(async (file: string, table: string, opts: ImportOptions) => {
      exit(
        await withClient('import', io, async () => (await import('./export-command.js')).importCommand(file, table, opts, io, streams())),
      );
    });
}

/** Runs a data command; an installation without the official client (@google-cloud/bigtable) gets a clear message. */
async function withClient(command: string, io: CliIo, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (e) {
    const missing = (e as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' && /@google-cloud\/bigtable|google-gax/.test(String(e));
    if (!missing) throw e;
    io.stderr(
      `tabletop ${command}: this installation lacks the official Bigtable client (@google-cloud/bigtable) that copy, export and import use: install it beside tabletopdb (npm install @google-cloud/bigtable), or run them from a checkout after npm ci`,
    );
    return 1;
  }
}

/** `tabletop serve`: resolves the settings, starts the server and runs until a signal. */
async function runServe(cli: Layer, configFlag: string | undefined, io: CliIo): Promise<number> {
  let settings: ServeSettings;
  try {
    const layers: Layer[] = [];
    const configFile = configFlag ?? nonEmpty(io.env?.[CONFIG_ENV]);
    if (configFile !== undefined) layers.push(readConfigFile(configFile));
    if (io.env !== undefined) layers.push(environmentLayer(io.env));
    layers.push(cli);
    settings = resolveServeSettings(layers);
  } catch (e) {
    io.stderr(`tabletop serve: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
  try {
    checkRe2Addon();
  } catch (e) {
    io.stderr(e instanceof Error ? e.message : String(e));
    return 1;
  }
  const logger = await createLogOutput({ level: settings.logLevel, format: settings.logFormat, write: io.stderr });
  let security: ServeSecurity;
  try {
    security = await serveSecurity(settings, logger);
  } catch (e) {
    io.stderr(`tabletop serve: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
  const began = performance.now();
  let server: RunningServer;
  try {
    server = await startServer({
      host: settings.host,
      port: settings.port,
      httpPort: settings.httpPort,
      inMemory: settings.inMemory,
      dataDir: settings.dataDir,
      config: settings.config,
      insight: settings.insight,
      logger,
      tuning: { ...settings.limits, slowCallMillis: settings.slowCallMillis },
      authenticator: security.authenticator,
      ...(security.projectPolicies === undefined ? {} : { projectPolicies: security.projectPolicies }),
      ...(security.tls === undefined ? {} : { tls: security.tls }),
    });
  } catch (e) {
    logger.error(startFailure(e, settings), { event: 'start-failed' });
    return 1;
  }
  const scheme = security.tls === undefined ? 'http' : 'https';
  const httpUrl = `${scheme}://${server.address.slice(0, server.address.lastIndexOf(':'))}:${server.httpPort ?? settings.httpPort}/`;
  io.stdout(`tabletop ${VERSION}`);
  if (settings.inMemory) io.stdout('Storage: in memory (--in-memory): data is lost when the server stops.');
  else {
    const threads = settings.config.backgroundThreads ?? 0;
    const builders = threads === 0 ? 'built on the serving thread' : `built by ${threads} background thread${threads === 1 ? '' : 's'}`;
    io.stdout(`Storage: durable, in ${settings.dataDir} (every acknowledged write is synced to disk; SSTables ${builders})`);
  }
  io.stdout(`Authentication: ${security.describe}`);
  if (security.tls === undefined) {
    io.stdout(`gRPC: ${server.address}`);
    io.stdout(`HTTP: ${httpUrl}`);
    io.stdout(`export BIGTABLE_EMULATOR_HOST=${server.address}`);
  } else {
    // BIGTABLE_EMULATOR_HOST makes clients speak plain text: TLS clients take the endpoint and the CA (README: Authentication and TLS).
    io.stdout(`gRPC: grpcs://${server.address} (TLS${settings.tlsClientCa === undefined ? '' : ', client certificates required'})`);
    io.stdout(`HTTP: ${httpUrl}`);
  }
  logger.info(
    `tabletop ${VERSION} serving gRPC${security.tls === undefined ? '' : ' over TLS'} on ${server.address} and HTTP on ${httpUrl}, authentication ${settings.auth ? 'on' : 'off'}, ${settings.inMemory ? 'in memory' : `data in ${settings.dataDir}`}; started in ${formatMillis(performance.now() - began)}`,
    {
      event: 'started',
      version: VERSION,
      grpc: server.address,
      http: httpUrl,
      storage: settings.inMemory ? 'memory' : 'disk',
      ...(settings.inMemory ? {} : { dataDir: settings.dataDir }),
      millis: Math.round(performance.now() - began),
    },
  );
  noteMissingNodeFlags(settings, io, logger);

  const signal = await new Promise<string>((resolve) => {
    const off = io.onSignal((s) => {
      off();
      resolve(s);
    });
  });
  logger.info(`${signal}: stopping (calls in flight finish first)...`, { event: 'stopping', signal });
  const offAgain = io.onSignal((s) => {
    logger.warn(`${s} again: exiting now`, { event: 'exit-now', signal: s });
    io.exitNow(1);
  });
  try {
    await server.stop();
  } catch (e) {
    logger.error(`error while stopping: ${e instanceof Error ? e.message : String(e)}`, { event: 'stop-failed' });
    offAgain();
    return 1;
  }
  offAgain();
  logger.info('stopped', { event: 'stopped' });
  return 0;
}

/** Why the server did not start, in words that name the real cause. */
function startFailure(e: unknown, settings: ServeSettings): string {
  const message = e instanceof Error ? e.message : String(e);
  if (isTabletopError(e, 'DataLoss'))
    return `the data in ${settings.dataDir} is damaged, so the server did not start (nothing was changed): ${message}`;
  // A bad data directory (a file, no permission, ...) or one in use by another server.
  if (isTabletopError(e, 'FailedPrecondition') || isTabletopError(e, 'InvalidArgument')) return `the server did not start: ${message}`;
  return `could not start on ${settings.host} (gRPC port ${settings.port}, HTTP port ${settings.httpPort}): ${message}`;
}

function noteMissingNodeFlags(settings: ServeSettings, io: CliIo, logger: Logger): void {
  const missing = io.execArgv === undefined || settings.inMemory ? [] : missingServerFlags(io.execArgv);
  if (missing.length === 0) return;
  logger.warn(
    `node was started without ${missing.join(' ')}, which \`tabletop\` and \`npm start\` pass: with most of the data off the JavaScript heap, V8 then runs its full collector several times a second under load and reads cost up to twice the CPU (start with \`node ${missing.join(' ')} dist/cli/main.js serve ...\`)`,
    { event: 'missing-node-flags', missing },
  );
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}
