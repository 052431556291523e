// lumen_upgradeConfig: changes Soroban network settings the way a network votes them in: the next
// ledger carries a LEDGER_UPGRADE_CONFIG and rewrites the CONFIG_SETTING entries in its upgrade
// meta, so followers, getLedgerEntries, simulation, admission and apply all see the new values.
import { xdr } from '../../../xdr/xdr.ts';
import { decodeLedgerEntry, encodeLedgerKey, toBase64, toHex } from '../../../xdr/codec.ts';
import { configSettingKey } from '../../../xdr/ledgerKeys.ts';
import { arrayOf, hexHash, ledgerSequence, object, uint32 } from '../shared/schemas.ts';
import { checkConfigUpgradeSet, configUpgradeStep, parseConfigUpgradeSet, SettingsError } from '../../../standalone/settingsUpgrades.ts';
import { devNetwork, devRefused, type DevMethod } from './types.ts';

export const upgradeConfig: DevMethod = {
  name: 'lumen_upgradeConfig',
  cli: { command: 'upgrade-config', args: ['configUpgradeSet'] },
  paramsSchema: {
    type: 'object',
    properties: { configUpgradeSet: { type: ['string', 'object'], description: 'ConfigUpgradeSet: base64 XDR or its JSON form' } },
    required: ['configUpgradeSet'],
    additionalProperties: false,
  },
  doc: {
    summary: 'Change Soroban network settings (a ConfigUpgradeSet) in the next ledger, as a config upgrade',
    result: {
      name: 'upgradeConfigResult',
      schema: object({
        ledger: ledgerSequence,
        contentHash: hexHash,
        configUpgradeSet: { type: 'string', description: 'the set applied (sorted by id), base64 XDR' },
        updatedSettings: arrayOf(uint32, 'the ConfigSettingIDs rewritten'),
      }),
    },
  },
  async handler(params, ctx) {
    const network = devNetwork(ctx);
    const current = (id: number) => {
      const stored = ctx.store.entry(encodeLedgerKey(configSettingKey(id)));
      const data = stored && decodeLedgerEntry(stored.entry).data;
      return data?.type === 8 ? data.configSetting : undefined;
    };
    let set: xdr.ConfigUpgradeSetWire;
    try {
      set = checkConfigUpgradeSet(parseConfigUpgradeSet(params.configUpgradeSet), current);
    } catch (e) {
      if (e instanceof SettingsError) throw devRefused(e.message);
      throw e;
    }
    if (!current(1)) throw devRefused('this network has no Soroban settings (the host addon is not built)');
    const { step, contentHash } = configUpgradeStep(set);
    const ledger = await network.closeNextLedger([step]);
    return {
      ledger,
      contentHash: toHex(contentHash),
      configUpgradeSet: toBase64(xdr.ConfigUpgradeSet.schema.encode(set)),
      updatedSettings: set.updatedEntry.map((e) => e.configSettingID),
    };
  },
};
