import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { DataEncryption } from './data-encryption';
import { EncryptionCodec } from './payload-codec';

export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
}

/** API and worker must agree on this converter, or neither can read the other's payloads. */
export const createDataConverter = (encryption: DataEncryption): DataConverter => ({
  payloadCodecs: [new EncryptionCodec(encryption)],
});

export async function createTemporalClient(settings: TemporalSettings, encryption: DataEncryption): Promise<Client> {
  const connection = await Connection.connect({ address: settings.address });
  return new Client({ connection, namespace: settings.namespace, dataConverter: createDataConverter(encryption) });
}
