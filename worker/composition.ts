/**
 * The worker process's composition root: every real client the activities need, built once from the validated
 * configuration (worker/main.ts, and tests that run a real worker in-process). Only here is KEY_ENCRYPTION_KEY turned
 * into the envelope that creates and opens service-held keys, and only here is the paymaster's sponsor key loaded.
 */
import type { WorkerConfig } from '../platform/config';
import type { DataEncryption } from '../platform/data-encryption';
import { EnvelopeEncryption } from '../platform/envelope';
import type { Orm } from '../db/orm';
import { nonceLockFor } from './nonce-lock';
import type { ActivityDeps } from '../activities';
import { sanctionsScreeningFrom } from '../integrations/sanctions';
import { storedSanctionsList } from '../db/compliance';
import { storedPriceReferences } from '../db/price-references';
import { ormResidentDatabase } from '../db/sql';
import { composeResident, type ResidentParts } from './resident';
import { RecoveryKey } from '../integrations/evm/recovery';
import { CredentialIssuer } from '../integrations/credentials/issuer';
import { CredentialBook } from '../activities/credentials';
import { ChainProviders } from '../integrations/evm/smart-account';
import { Bundlers } from '../integrations/evm/bundlers';
import type { ConfirmationObserver } from '../integrations/evm/bundlers';
import { SolanaChains, SolanaFaucet } from '../integrations/solana';
import { JupiterSwapApi } from '../integrations/dex/jupiter';
import { SolanaWallets, TransferKeys } from '../integrations/custody/key-vault';
import { PaymasterSigner } from '../integrations/evm/paymaster';
import { PriceFeedClient } from '../integrations/prices/feed';

export type WorkerDeps = ActivityDeps & { encryption: DataEncryption; close(): void };

/**
 * `confirmations`: the worker's metrics of chain confirmation times (worker/main.ts passes them). `parts`: the
 * resident clients the worker built at its start (worker/resident.ts); by default built here, over the ORM's pool.
 */
export function composeWorker(
  config: WorkerConfig,
  orm: Orm,
  confirmations?: ConfirmationObserver,
  parts: ResidentParts = composeResident(config, ormResidentDatabase(orm), async () => orm),
): WorkerDeps {
  const { encryption, networks, sdnList, resident, mail, bank, idCardReader, idCardCheck, travelRule, marketData } =
    parts;
  const providers = new ChainProviders(config.CHAIN_RPC_TIMEOUT_MS);
  const keyEnvelope = new EnvelopeEncryption(config.KEY_ENCRYPTION_KEY);
  return {
    orm,
    encryption,
    networks,
    testClockEnabled: config.TEST_CLOCK_ENABLED,
    providers,
    idCardReader,
    recoveryKey: new RecoveryKey(config.RECOVERY_PRIVATE_KEY, providers, nonceLockFor(orm)),
    idCardCheck,
    bank,
    mail,
    webhookPolicy: {
      allowHttp: config.NODE_ENV !== 'production',
      allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    },
    webhookTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
    newPasskeyHoldSeconds: config.NEW_PASSKEY_HOLD_SECONDS,
    bundlers: new Bundlers(networks, providers, confirmations),
    confirmations,
    credentials: new CredentialBook({
      orm,
      encryption,
      issuer: new CredentialIssuer(config.VC_ISSUER_KEY, config.VC_ISSUER_NAME),
      credentialValiditySeconds: config.VC_VALIDITY_SECONDS,
      statusBaseUrl: config.VC_STATUS_BASE_URL,
      didNetwork: networks.get(config.DID_NETWORK_ID),
    }),
    paymaster: new PaymasterSigner(config.PAYMASTER_SIGNER_KEY),
    gasBudgetDailyKrw: config.GAS_BUDGET_DAILY_KRW,
    prices: new PriceFeedClient({
      source: marketData,
      checks: { maxAgeSeconds: config.PRICE_MAX_AGE_SECONDS, bandPercent: config.PRICE_BAND_PERCENT },
      references: storedPriceReferences(orm),
    }),
    solanaChains: new SolanaChains(config.CHAIN_RPC_TIMEOUT_MS),
    faucet: new SolanaFaucet(),
    sanctions: sanctionsScreeningFrom(config, storedSanctionsList(orm)),
    travelRule,
    vasp: { id: config.TRAVEL_RULE_VASP_ID, name: config.TRAVEL_RULE_VASP_NAME },
    retentionDays: config.COMPLIANCE_RETENTION_DAYS,
    sdnList,
    resident,
    transferKeys: new TransferKeys(orm, keyEnvelope),
    solanaWallets: new SolanaWallets(orm, keyEnvelope),
    jupiter: config.JUPITER_API_KEY
      ? new JupiterSwapApi({
          baseUrl: config.JUPITER_API_URL,
          apiKey: config.JUPITER_API_KEY,
          timeoutMs: config.PROVIDER_TIMEOUT_MS,
        })
      : undefined,
    solanaSwapMaxFeeLamports: config.SOLANA_SWAP_MAX_FEE_LAMPORTS,
    close: () => {
      providers.destroy();
      mail.close();
    },
  };
}
