// The standalone network also answers stellar-core's `GET /tx?blob=<base64 envelope>`, with core's
// JSON ({status, error, diagnostic_events}), so a second node can follow it as a real network and
// submit through it exactly as it would submit to core.
import type { FastifyInstance } from 'fastify';
import { MAX_ENVELOPE_BYTES, type TransactionSubmitter } from './transactionSubmitter.ts';
import { joinDiagnosticEvents } from './coreSubmitter.ts';
import { toBase64, type TransactionEnvelope } from '../xdr/codec.ts';
import { decodeEnvelope } from '../xdr/transactions.ts';

export function registerCoreTxEndpoint(app: FastifyInstance, submitter: TransactionSubmitter): void {
  app.get('/tx', async (req, reply) => {
    const blob = (req.query as Record<string, unknown>)?.blob;
    const bytes = typeof blob === 'string' ? Buffer.from(blob, 'base64') : undefined;
    if (!bytes || bytes.length === 0 || bytes.length > MAX_ENVELOPE_BYTES) {
      return reply.send({ exception: 'Must specify a tx blob: tx?blob=<tx in xdr format>' });
    }
    let envelope: TransactionEnvelope;
    try {
      envelope = decodeEnvelope(bytes);
    } catch {
      return reply.send({ exception: 'Invalid XDR' });
    }
    const result = await submitter.submit(bytes, envelope);
    if (result.status !== 'ERROR') return reply.send({ status: result.status });
    return reply.send({
      status: 'ERROR',
      ...(result.errorResult ? { error: toBase64(result.errorResult) } : {}),
      ...(result.diagnosticEvents?.length ? { diagnostic_events: toBase64(joinDiagnosticEvents(result.diagnosticEvents)) } : {}),
    });
  });
}
