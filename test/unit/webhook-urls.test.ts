import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkWebhookUrl, deliverWebhook, isPublicAddress, WebhookUrlRefused } from '../../integrations/webhooks';

/** SSRF: the service must not be made to call its own network through a webhook URL, at registration or delivery. */
describe('webhook URLs', () => {
  const production = { allowHttp: false, allowPrivateNetworks: false };

  it('refuses non-https URLs, credentials in the URL, and every kind of non-public address', async () => {
    for (const url of [
      'http://93.184.216.34/hook',
      'ftp://93.184.216.34/hook',
      'https://user:secret@93.184.216.34/hook',
      'not a url',
      'https://127.0.0.1/hook',
      'https://localhost:8443/hook',
      'https://[::1]/hook',
      'https://10.1.2.3/hook',
      'https://172.16.0.9/hook',
      'https://192.168.0.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/hook',
      'https://0.0.0.0/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[fd00::1]/hook',
      'https://[fe80::1]/hook',
    ]) {
      await expect(checkWebhookUrl(url, production)).rejects.toBeInstanceOf(WebhookUrlRefused);
    }
    await expect(checkWebhookUrl('https://93.184.216.34/hook', production)).resolves.toBeUndefined();
    expect(isPublicAddress('8.8.8.8')).toBe(true);
    expect(isPublicAddress('::ffff:10.0.0.1')).toBe(false);
  });

  describe('at delivery', () => {
    let server: Server;
    let requests = 0;
    let port: number;
    beforeAll(async () => {
      server = createServer((req, res) => {
        requests += 1;
        res.writeHead(204).end();
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));
    const delivery = (host: string) => ({
      url: `http://${host}:${port}/hook`,
      webhookId: 'evt_1',
      secrets: [`whsec_${Buffer.alloc(32, 1).toString('base64')}`],
      body: '{}',
    });

    it('never connects to a private address, by literal or by a name resolving to it, unless private networks are allowed', async () => {
      const noPrivate = { allowHttp: true, allowPrivateNetworks: false };
      await expect(deliverWebhook(delivery('127.0.0.1'), noPrivate, 2000)).rejects.toBeInstanceOf(WebhookUrlRefused);
      await expect(deliverWebhook(delivery('localhost'), noPrivate, 2000)).rejects.toThrow(/non-public/);
      expect(requests).toBe(0);
      expect(
        (await deliverWebhook(delivery('127.0.0.1'), { allowHttp: true, allowPrivateNetworks: true }, 2000)).status,
      ).toBe(204);
      expect(requests).toBe(1);
    });
  });
});
