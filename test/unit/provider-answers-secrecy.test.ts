import { inspect } from 'node:util';
import { Type } from '@sinclair/typebox';
import { ProviderAnswerInvalid, expectAnswer } from '../../integrations/provider-http';
import { readingFromClovaAnswer } from '../../integrations/id-card/clova-ocr-answer';
import { createLogger } from '../../platform/logger';

/**
 * A provider answer that does not match its schema is an error, and errors are logged: what the error keeps of the
 * answer must hold none of the personal data or secrets answers carry (found by an outside review: a token answer's
 * access_token and a CLOVA reading's resident number reached the logs).
 */
describe('what a malformed provider answer leaves in an error', () => {
  const RESIDENT_NUMBER = '900115-1234567';
  const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJhdWQiOiIxMTAwNzcwNTMwIn0.c2VjcmV0';

  const logged = (error: unknown): string => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'trace',
      name: 'test',
      destination: { write: (l: string) => void lines.push(l) },
    });
    logger.error({ err: error, error }, 'provider answer refused');
    return `${lines.join('')}${inspect(error, { depth: 10 })}${JSON.stringify(error)}`;
  };

  it('keeps the shape of a token answer that drifted from its schema, never the token', () => {
    const answer = { access_token: TOKEN, refresh_token: TOKEN, expires_in: '7776000', user_seq_no: '1100770530' };
    let error: unknown;
    try {
      expectAnswer(Type.Object({ expires_in: Type.Integer() }), answer, 'a person token');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProviderAnswerInvalid);
    expect((error as ProviderAnswerInvalid).answer).toBe(
      '{"access_token":"string","refresh_token":"string","expires_in":"string","user_seq_no":"string"}',
    );
    expect(logged(error)).not.toContain(TOKEN);
  });

  it('keeps no resident number of a CLOVA answer it cannot read', () => {
    const answer = {
      images: [
        {
          inferResult: 'SUCCESS',
          idCard: { result: { isConfident: 'yes', ic: { personalNum: [{ text: RESIDENT_NUMBER }] } } },
        },
      ],
    };
    let error: unknown;
    try {
      readingFromClovaAnswer(answer);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ProviderAnswerInvalid);
    const text = logged(error);
    expect(text).not.toContain(RESIDENT_NUMBER);
    expect(text).not.toContain('1234567');
  });

  it('keeps only the length of an answer that is not JSON', () => {
    expect(new ProviderAnswerInvalid('not JSON', `<html>${RESIDENT_NUMBER}</html>`).answer).toBe(
      '(27 characters, not JSON)',
    );
  });
});
