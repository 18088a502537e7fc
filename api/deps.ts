/** What the API process is built from: its settings and every client of the outside world (api/composition.ts). */
import type { BlockList } from 'node:net';
import type { CodeBoxKey } from '../integrations/travel-rule/code/crypto';
import type { Client } from '@temporalio/client';
import type { Orm } from '../db/orm';
import type { ApiConfig } from '../platform/config';
import type { DataEncryption } from '../platform/data-encryption';
import type { Logger } from '../platform/logger';
import type { SessionCache } from './common/session-cache';
import type { PassTokens } from '../integrations/identity';
import type { NiceIdentityWindows } from './registration/identity-windows';
import type { TokenService } from './auth/tokens';
import type { PriceFeedClient } from '../integrations/prices/feed';
import type { SwapLimits } from './exchange/swap-limits';
import type { SecuritiesBroker } from '../integrations/securities/broker';
import type { ExchangeAccounts, ExchangeName } from '../integrations/exchange/accounts';
import type { CodeVasp } from '../integrations/travel-rule/counterparts';
import type { CexClient } from '../integrations/cex';
import type { SanctionsScreening } from '../integrations/sanctions';
import type { TravelRuleCounterpart } from '../integrations/travel-rule/trp';
import type { QuoteEngine } from './exchange/quote';
import type { BankRail } from '../integrations/bank/rail';
import type { PinService } from './pin/service';
import type { SecurityNotices } from './common/security-notices';
import type { SolanaChains } from '../integrations/solana';
import type { RateLimits } from './http/rate-limits';
import type { ApiMetrics } from './http/metrics';
import type { Operators } from './operators/operators';
import type { NetworkRegistry } from '../platform/networks';
import type { ChainProviders } from '../integrations/evm/smart-account';

export interface AppDeps {
  config: ApiConfig;
  orm: Orm;
  temporal: Client;
  logger: Logger;
  encryption: DataEncryption;
  networks: NetworkRegistry;
  /** TRANSFER_SIGNER_DAILY_CAPS: per token symbol, whole tokens the transfer key may send per day (on chain). */
  transferSignerCaps: Record<string, string>;
  tokens: TokenService;
  pins: PinService;
  /** Mail to the person about changes to how their account is protected (started by the API, sent by the worker). */
  notices: SecurityNotices;
  quotes: QuoteEngine;
  swapLimits: SwapLimits;
  rateLimits: RateLimits;
  /** Request, rate-limit and dependency metrics (served by api/main.ts on METRICS_PORT). */
  metrics: ApiMetrics;
  providers: ChainProviders;
  solanaChains: SolanaChains;
  identity: PassTokens;
  /** IDENTITY_PROVIDER=nice: the verifications the service opens in NICE's window (also `identity`). */
  identityWindows?: NiceIdentityWindows;
  bank: BankRail;
  prices: PriceFeedClient;
  securities: SecuritiesBroker;
  cex: CexClient;
  /** The exchanges whose accounts a key pair connects (Upbit, Bithumb). */
  exchanges: Record<ExchangeName, ExchangeAccounts>;
  /** Sanctions screening: the stored SDN list, then the screening provider when one is configured. */
  sanctions: SanctionsScreening;
  /** TRAVEL_RULE_COUNTERPARTS: the VASPs we exchange Travel Rule messages with. */
  travelRuleCounterparts: TravelRuleCounterpart[];
  /** The VASPs on CODE's network a transfer may name as beneficiary_vasp (TRAVEL_RULE_CODE_VASPS). */
  codeVasps: CodeVasp[];
  /** Our identity on CODE's Response API listener (TRAVEL_RULE_CODE_PORT), when it is on. */
  codeIdentity?: {
    entityId: string;
    name: string;
    box: CodeBoxKey;
    /** Our verify key, base64. */
    publicKey: string;
    /** TRAVEL_RULE_CODE_ALLOWED_IPS: CODE's addresses. */
    allowed: BlockList;
  };
  /** OPERATOR_TOKENS: who may use the operator routes (the Temporal UI's codec). */
  operators: Operators;
  /** The per-request session rows, kept while the database tells of no change (PostgreSQL LISTEN/NOTIFY). */
  sessions?: SessionCache;
}
