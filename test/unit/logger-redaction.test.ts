import { Writable } from 'node:stream';
import { createLogger } from '../../platform/logger';

/** What a log line may not carry: a broker's key pair, a PIN, tokens (platform/logger.ts REDACTED_PATHS). */
describe('the logger', () => {
  it('writes no app key, app secret, PIN or token it is handed', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ level: 'info', name: 'test', destination });
    logger.info(
      {
        body: { app_key: 'PSkey1234567890', app_secret: 'secret-of-the-broker', pin: '1234' },
        headers: { appkey: 'PSkey1234567890', appsecret: 'secret-of-the-broker' },
        answer: { access_token: 'eyJ.token' },
      },
      'a request',
    );
    const line = lines.join('');
    expect(line).toContain('a request');
    for (const secret of ['PSkey1234567890', 'secret-of-the-broker', '"1234"', 'eyJ.token'])
      expect(line).not.toContain(secret);
  });
});
