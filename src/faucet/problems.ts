// The faucet's error answers, in the shape the public friendbot renders (RFC 7807 problems from the
// Go SDK's support/render/problem, under friendbot's registered type host). CI health checks and
// clients read them: a request without a usable `addr` is looked for by `"invalid_field": "addr"`,
// an already funded address by its `detail`.
import { xdr } from '../xdr/xdr.ts';
import { toBase64 } from '../xdr/codec.ts';

export interface FaucetAnswer { status: number; body: Record<string, unknown> }

const TYPE_HOST = 'https://stellar.org/friendbot-errors/';

/** friendbot's own text for a destination holding the starting balance already. */
export const ALREADY_FUNDED = 'account already funded to starting balance';

function problem(status: 400 | 500, type: string, title: string, detail: string, extras?: Record<string, string>): FaucetAnswer {
  return { status, body: { type: TYPE_HOST + type, title, status, detail, ...(extras ? { extras } : {}) } };
}

export const badRequest = (detail: string): FaucetAnswer => problem(400, 'bad_request', 'Bad Request', detail);

export const serverError = (detail: string): FaucetAnswer => problem(500, 'server_error', 'Internal Server Error', detail);

/** `addr` missing, or neither a G... account nor a C... contract address: friendbot's invalid-field problem. */
export function invalidAddress(reason = 'invalid address: must be a valid G or C address'): FaucetAnswer {
  return problem(400, 'bad_request', 'Bad Request', 'The request you sent was invalid in some way.', { invalid_field: 'addr', reason });
}

/**
 * An account that exists already: both texts clients take for "already funded". stellar-cli's
 * `keys fund` looks for today's friendbot text, the JS SDK's requestAirdrop for the failed
 * CreateAccount result the older friendbot sent.
 */
export function accountAlreadyFunded(): FaucetAnswer {
  const result: xdr.TransactionResultWire = {
    feeCharged: 100n,
    result: { code: -1, results: [{ code: 0, tr: { type: 0, createAccountResult: { code: -4 } } }] },
    ext: { v: 0 },
  };
  return badRequest(`${ALREADY_FUNDED}; createAccountAlreadyExist (${toBase64(xdr.TransactionResult.schema.encode(result))})`);
}

/** A contract holding the starting balance already: friendbot answers its plain text. */
export const contractAlreadyFunded = (): FaucetAnswer => badRequest(ALREADY_FUNDED);
