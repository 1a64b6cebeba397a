import { describe, expect, it } from 'vitest';
import { FlagError, FlagSet, HelpRequested } from './flags.js';

function flags() {
  return new FlagSet('prog')
    .define({ name: 'TargetPort', alias: 'target-port', kind: 'int', default: 0, usage: 'port' })
    .define({ name: 'TargetNamespace', alias: 'target-namespace', kind: 'string', default: '', usage: 'ns' })
    .define({ name: 'Verbose', alias: 'verbose', kind: 'bool', default: false, usage: 'v' })
    .define({ name: 'ProbeInterval', alias: 'probe-interval', kind: 'duration', default: 100, usage: 'i' });
}

describe('FlagSet (Go flag syntax)', () => {
  it.each([
    [['-TargetPort=80'], 80],
    [['-TargetPort', '80'], 80],
    [['--TargetPort=80'], 80],
    [['--TargetPort', '80'], 80],
    [['--target-port=80'], 80],
    [['-target-port', '80'], 80],
  ])('%j sets TargetPort', (argv, port) => expect(flags().parse(argv).int('TargetPort')).toBe(port));

  it('keeps quotes that the shell did not strip, as Go does (upstream manifests pass -X="v" through exec, unquoted)', () => {
    expect(flags().parse(['-TargetNamespace=test-policy']).string('TargetNamespace')).toBe('test-policy');
  });

  it('reads booleans as Go does', () => {
    expect(flags().parse(['-Verbose']).bool('Verbose')).toBe(true);
    expect(flags().parse(['-Verbose=false']).bool('Verbose')).toBe(false);
    expect(flags().parse(['--verbose=1']).bool('Verbose')).toBe(true);
    expect(() => flags().parse(['-Verbose=yes'])).toThrow(/invalid boolean value "yes" for -Verbose/);
  });

  it('parses durations and keeps defaults for unset flags', () => {
    const parsed = flags().parse(['-ProbeInterval=50ms']);
    expect(parsed.duration('ProbeInterval')).toBe(50);
    expect(parsed.isSet('ProbeInterval')).toBe(true);
    expect(parsed.isSet('TargetPort')).toBe(false);
    expect(parsed.int('TargetPort')).toBe(0);
  });

  it('stops at the first non-flag argument or after --', () => {
    expect(flags().parse(['-TargetPort=1', 'rest', '-Verbose']).args).toEqual(['rest', '-Verbose']);
    expect(flags().parse(['--', '-Verbose']).args).toEqual(['-Verbose']);
  });

  it.each([
    [['-Nope=1'], 'flag provided but not defined: -Nope'],
    [['-TargetPort'], 'flag needs an argument: -TargetPort'],
    [['-TargetPort=eighty'], 'invalid value "eighty" for flag -TargetPort: not an integer'],
    [['-ProbeInterval=5'], 'invalid value "5" for flag -ProbeInterval: not a duration'],
    [['---x'], 'bad flag syntax: ---x'],
  ])('%j is an error: %s', (argv, message) => {
    expect(() => flags().parse(argv)).toThrow(FlagError);
    expect(() => flags().parse(argv)).toThrow(message);
  });

  it('-help asks for usage listing every flag with its alias and default', () => {
    let usage = '';
    try {
      flags().parse(['-help']);
    } catch (e) {
      expect(e).toBeInstanceOf(HelpRequested);
      usage = (e as Error).message;
    }
    expect(usage).toContain('-TargetPort int   (alias --target-port)');
    expect(usage).toContain('(default 100ms)');
  });

  it('lists every value for the start-up log', () => {
    const fs = flags();
    expect(fs.parse(['-TargetPort=80']).all(fs.specs)).toEqual({
      ProbeInterval: '100ms',
      TargetNamespace: '',
      TargetPort: 80,
      Verbose: false,
    });
  });
});
