// The methods that change one header value from the next ledger on (base fee, base reserve): the
// same params, result and ledger upgrade, for a different field.
import { ledgerSequence, object, uint32 } from '../../shared/schemas.ts';
import { headerUpgradeStep, latestHeader } from '../../../../standalone/settingsUpgrades.ts';
import { devNetwork, type DevMethod } from '../types.ts';

export function headerUpgradeMethod(opts: {
  name: string; command: string; field: 'baseFee' | 'baseReserve'; unit: string; summary: string;
}): DevMethod {
  const { field } = opts;
  return {
    name: opts.name,
    cli: { command: opts.command, args: [field] },
    paramsSchema: {
      type: 'object',
      properties: { [field]: { type: 'integer', minimum: 1, maximum: 0xffff_ffff, description: opts.unit } },
      required: [field],
      additionalProperties: false,
    },
    doc: {
      summary: opts.summary,
      result: { name: `${opts.name.replace(/^lumen_/, '')}Result`, schema: object({ ledger: ledgerSequence, [field]: uint32, previous: uint32 }) },
    },
    async handler(params, ctx) {
      const network = devNetwork(ctx);
      const previous = latestHeader(ctx.store)[field];
      const ledger = await network.closeNextLedger([headerUpgradeStep(field, params[field] as number)]);
      return { ledger, [field]: latestHeader(ctx.store)[field], previous };
    },
  };
}
