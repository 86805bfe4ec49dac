import { describe, expect, it } from 'vitest';
import { expectedFor, normalizeCbtOutput, parseTranscript, splitArgs } from './transcript.js';

describe('cbt transcripts', () => {
  it('parse commands, outputs with blank lines, comments and emulator sections', () => {
    const steps = parseTranscript(
      [
        '# comment',
        'cbt read t',
        '----',
        '----------------------------------------',
        'r1',
        '',
        '----------------------------------------',
        'r2',
        '',
        'cbt set t r nope:a=1',
        '----',
        'exit 1: Applying mutation: rpc error: code = NotFound',
        '---- emulator: unknown-family-code',
        'exit 1: Applying mutation: rpc error: code = Unknown',
        '',
        'cbt ls',
        '----',
        '',
      ].join('\n'),
      'x.txt',
    );
    expect(steps.map((s) => [s.line, s.args, s.expected])).toEqual([
      [2, ['read', 't'], '----------------------------------------\nr1\n\n----------------------------------------\nr2'],
      [10, ['set', 't', 'r', 'nope:a=1'], 'exit 1: Applying mutation: rpc error: code = NotFound'],
      [16, ['ls'], ''],
    ]);
    const [, set] = steps;
    expect(set && expectedFor(set, 'emulator')).toBe('exit 1: Applying mutation: rpc error: code = Unknown');
    expect(set && expectedFor(set, 'tabletop')).toBe('exit 1: Applying mutation: rpc error: code = NotFound');
  });

  it('reject malformed transcripts and unknown divergences', () => {
    expect(() => parseTranscript('cbt ls\nno separator\n', 'x.txt')).toThrow(/x.txt:2: expected ----/);
    expect(() => parseTranscript('ls\n----\n', 'x.txt')).toThrow(/x.txt:1: expected a cbt command/);
    expect(() => parseTranscript('cbt ls\n----\n---- emulator: made-up\n', 'x.txt')).toThrow(/unknown divergence made-up/);
  });

  it('split arguments with quotes', () => {
    expect(splitArgs(`createtable t "families=a:maxage=1d||maxversions=2,b" 'x y' ""`, 'here')).toEqual([
      'createtable',
      't',
      'families=a:maxage=1d||maxversions=2,b',
      'x y',
      '',
    ]);
    expect(() => splitArgs('set "open', 'here')).toThrow(/here: unterminated quote/);
  });

  it('normalize output: trailing space, recent timestamps, failures without server wording', () => {
    const now = Date.UTC(2030, 0, 2, 3, 4, 5, 6);
    expect(
      normalizeCbtOutput(
        { code: 0, stdout: 'r\n  cf:a  @ 2030/01/02-03:04:05.006000\n  cf:b  @ 1970/01/01-00:00:00.001000\n\n', stderr: 'noise' },
        now - 1000,
        now + 1000,
      ),
    ).toBe('r\n  cf:a  @ <now>\n  cf:b  @ 1970/01/01-00:00:00.001000');
    expect(
      normalizeCbtOutput(
        {
          code: 1,
          stdout: '',
          stderr:
            '2030/01/02 03:04:05 -creds flag unset, will use gcloud credential\n2030/01/02 03:04:05 Reading rows: rpc error: code = NotFound desc = table "x" not found\n',
        },
        0,
        0,
      ),
    ).toBe('exit 1: Reading rows: rpc error: code = NotFound');
  });
});
