/**
 * How the ids one operation answers feed the next (OpenAPI `links`): a reader, a generated client or a fuzzer's
 * stateful phase can chain register -> eKYC -> backup, deploy -> its job, execute -> the transfer. One table, checked
 * by test/api/openapi.test.ts: every target exists and takes those parameters, every source field is in the answer.
 */
export interface LinkSpec {
  operationId: string;
  parameters: Record<string, string>;
  description?: string;
}
export type OperationLinks = Record<string, Record<number, Record<string, LinkSpec>>>;

const to = (operationId: string, parameters: Record<string, string>, description?: string): LinkSpec => ({
  operationId,
  parameters,
  ...(description ? { description } : {}),
});
const body = (pointer: string) => `$response.body#${pointer}`;
/** The /api/v1/* answers wrap their data: `{status, data}`. */
const data = (field: string) => body(`/data/${field}`);

const regId = { regId: body('/regId') };
const signInId = { signInId: body('/signInId') };
const endpointId = { endpointId: body('/endpointId') };
const transfer = { transferId: data('transfer_id') };

export const OPERATION_LINKS: OperationLinks = {
  startRegistration: {
    201: {
      GetRegistration: to('getRegistration', regId, 'The registration and its step'),
      UploadIdCardImage: to('uploadIdCardImage', regId),
      SubmitEkyc: to('submitEkyc', regId, 'The next step'),
      SubmitWalletBackup: to('submitWalletBackup', regId, 'The last step, after eKYC'),
    },
  },
  startSignIn: {
    201: {
      GetSignIn: to('getSignIn', signInId),
      PasskeyOptions: to('signInPasskeyOptions', signInId),
      ProveWithPasskey: to('proveSignInWithPasskey', signInId),
      ProveWithIdCard: to('proveSignInWithIdCard', signInId),
    },
  },
  executeDeploy: { 202: { GetDeployJob: to('getDeployJob', { jobId: body('/jobId') }, 'Poll until completed') } },
  executeAccountUpgrade: { 202: { GetOperation: to('getRecoveryOperation', { accountOpId: body('/opId') }) } },
  executeRecoveryCancel: { 202: { GetOperation: to('getRecoveryOperation', { accountOpId: body('/opId') }) } },
  startRecovery: {
    202: { GetRecovery: to('getRecovery', { recoveryId: body('/recoveryId') }, 'Its state per network') },
  },
  executeKeyRotation: {
    202: {
      GetKeyRotation: to('getKeyRotation', { taskId: body('/taskId') }),
      RetryNetwork: to('retryKeyRotationNetwork', { taskId: body('/taskId') }, 'A network that failed, again'),
    },
  },
  executeAssertionKey: { 202: { GetDidKeyOperation: to('getDidKeyOperation', { opId: body('/opId') }) } },
  executeTransferKeyChange: {
    202: { GetTransferKeyOperation: to('getTransferKeyOperation', { keyOpId: body('/opId') }) },
  },
  executeCharge: { 202: { GetCharge: to('getCharge', { chargeId: data('charge_id') }, 'Poll until completed') } },
  executeCryptoTransfer: {
    200: { GetCryptoTransfer: to('getCryptoTransfer', transfer) },
    202: { GetCryptoTransfer: to('getCryptoTransfer', transfer, 'Poll until confirmed or finalized') },
  },
  registerPasskey: { 201: { RemovePasskey: to('removePasskey', { passkeyId: body('/passkeyId') }) } },
  addOtherAsset: { 201: { RemoveOtherAsset: to('removeOtherAsset', { assetId: data('assetId') }) } },
  connectCexAccount: { 201: { GetCexAccount: to('getCexAccount', { cexAccountId: body('/cexAccountId') }) } },
  createWebhookEndpoint: {
    201: {
      GetEndpoint: to('getWebhookEndpoint', endpointId, 'Its delivery state'),
      UpdateEndpoint: to('updateWebhookEndpoint', endpointId),
      RotateSecret: to('rotateWebhookSecret', endpointId),
      Replay: to('replayWebhookEvents', endpointId),
      DeleteEndpoint: to('deleteWebhookEndpoint', endpointId),
    },
  },
};
