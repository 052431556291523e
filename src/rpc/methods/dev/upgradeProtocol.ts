// lumen_upgradeProtocol: votes a protocol upgrade in at the next close, as a network's validators do
// (a LEDGER_UPGRADE_VERSION in that ledger's value), so a team can rehearse a network upgrade
// locally: contracts deployed before keep running, and from the ledger after the upgrade on every
// transaction and simulation runs on the new protocol's host line. The configuration changes the
// new protocol brings (new cost types' parameters) are made in the same upgrade.
import { ledgerSequence, object, uint32 } from '../shared/schemas.ts';
import { latestHeader, protocolUpgradeStep, SettingsError } from '../../../standalone/settingsUpgrades.ts';
import { devNetwork, devRefused, type DevMethod } from './types.ts';

export const upgradeProtocol: DevMethod = {
  name: 'lumen_upgradeProtocol',
  cli: { command: 'upgrade-protocol', args: ['protocol'] },
  paramsSchema: {
    type: 'object',
    properties: { protocol: { type: 'integer', minimum: 1, maximum: 0xffff_ffff, description: 'the new ledger protocol, newer than the network\'s' } },
    required: ['protocol'],
    additionalProperties: false,
  },
  doc: {
    summary: 'Upgrade the network\'s ledger protocol at the next close (a ledger upgrade)',
    result: { name: 'upgradeProtocolResult', schema: object({ ledger: ledgerSequence, protocol: uint32, previous: uint32 }) },
  },
  async handler(params, ctx) {
    const network = devNetwork(ctx);
    const previous = latestHeader(ctx.store).ledgerVersion;
    let step;
    try {
      step = protocolUpgradeStep(previous, params.protocol as number);
    } catch (e) {
      if (e instanceof SettingsError) throw devRefused(e.message);
      throw e;
    }
    const ledger = await network.closeNextLedger([step]);
    return { ledger, protocol: latestHeader(ctx.store).ledgerVersion, previous };
  },
};
