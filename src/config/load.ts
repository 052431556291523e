// Builds the Config: defaults, then the TOML file, then environment variables, then flags.
import { readConfigFile } from '../io/inputCaps.ts';
import { parse as parseToml } from 'smol-toml';
import { defaultConfig, networkPresets, STANDALONE_PASSPHRASE, type Config } from './config.ts';
import { envName, options, parseOption, type OptionSpec } from './options.ts';

export interface ConfigSources {
  flags: Record<string, unknown>;         // flag name (kebab-case) -> raw value, only those given
  env: NodeJS.ProcessEnv;
  configPath?: string;
  strict?: boolean;                       // reject unknown TOML keys
}

export function loadConfig(src: ConfigSources): Config {
  const config: Config = structuredClone(defaultConfig);
  const given = new Set<keyof Config>();
  const set = (spec: OptionSpec, value: unknown) => {
    given.add(spec.key);
    const c = config as unknown as Record<string, unknown>;
    if (spec.member === undefined) c[spec.key] = value;
    else (c[spec.key] as Record<string, unknown>)[spec.member] = value;
  };

  if (src.configPath) {
    const toml = parseToml(readConfigFile(src.configPath)) as Record<string, unknown>;
    for (const [k, v] of Object.entries(toml)) {
      const spec = options.find((o) => envName(o.flag) === k);
      if (!spec) {
        if (src.strict) throw new Error(`unknown key ${k} in ${src.configPath}`);
        continue;
      }
      set(spec, parseOption(spec, v));
    }
  }
  for (const spec of options) {
    const v = src.env[envName(spec.flag)];
    if (v !== undefined && v !== '') set(spec, parseOption(spec, v));
  }
  for (const spec of options) {
    if (spec.flag in src.flags) set(spec, parseOption(spec, src.flags[spec.flag]));
  }
  applyNetworkPreset(config);
  // a fork takes the remote's passphrase unless one was given (src/fork/forkStart.ts fills it in)
  if (config.forkUrl && !given.has('networkPassphrase')) config.networkPassphrase = '';
  // --fork-archive: the passphrase is required (src/fork/archiveFork.ts refuses ""), or --network's
  // (whose data lake is then the datastore the ledgers after the checkpoint come from)
  if (config.forkArchive && !given.has('networkPassphrase') && !config.network) config.networkPassphrase = '';
  return config;
}

/** `--network` fills what was not given explicitly. */
function applyNetworkPreset(config: Config): void {
  if (!config.network) return;
  const preset = networkPresets[config.network];
  if (config.networkPassphrase === STANDALONE_PASSPHRASE) config.networkPassphrase = preset.passphrase;
  if (!config.historyArchiveUrls) config.historyArchiveUrls = preset.historyArchiveUrls.join(',');
  if (!config.datastore && !config.metaStream && !config.stellarCoreBinaryPath) config.datastore = preset.datastore;
  if (!config.friendbotUrl) config.friendbotUrl = preset.friendbotUrl;
}

/** The configuration as a TOML file, for `lumen-rpc gen-config`. */
export function configToToml(config: Config): string {
  const lines = ['# lumen-rpc configuration; every key may also be given as a flag or environment variable.'];
  for (const spec of options) {
    const v = spec.member === undefined ? config[spec.key] : (config[spec.key] as Record<string, unknown>)[spec.member];
    lines.push(`# ${spec.help}`);
    lines.push(`${envName(spec.flag)} = ${typeof v === 'string' ? JSON.stringify(v) : String(v)}`);
  }
  return lines.join('\n') + '\n';
}
