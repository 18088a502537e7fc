import { JsonRpcProvider, makeError, type JsonRpcPayload, type JsonRpcResult } from 'ethers';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * ethers' JsonRpcProvider with its request and response bodies encoded and decoded by the runtime (Buffer,
 * TextDecoder) instead of ethers' own UTF-8 code, which builds an array of every code point of an answer before
 * joining it: about 23 MiB of garbage in the worker over one 100-at-once round of the transfers bench, the largest
 * single source of its allocations (bench/NOTES.md, step 13). Same request, same errors: an answer that is not UTF-8
 * or not JSON is refused as ethers refuses it (UNSUPPORTED_OPERATION), an HTTP error by `assertOk` as before.
 */
export class NativeBodyJsonRpcProvider extends JsonRpcProvider {
  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    const request = this._getConnection();
    request.body = Buffer.from(JSON.stringify(payload));
    request.setHeader('content-type', 'application/json');
    const response = await request.send();
    response.assertOk();
    let answer: unknown;
    try {
      answer = JSON.parse(utf8.decode(response.body ?? new Uint8Array()));
    } catch {
      throw makeError('response body is not valid JSON', 'UNSUPPORTED_OPERATION', {
        operation: 'bodyJson',
        info: { response },
      });
    }
    return (Array.isArray(answer) ? answer : [answer]) as JsonRpcResult[];
  }
}
