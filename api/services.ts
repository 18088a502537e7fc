/**
 * Every service the API's routes are built on, from the process's settings and clients (AppDeps). The composition
 * root (api/composition.ts) builds them once; the route table only wires routes to them; the OpenAPI export builds
 * them on unavailable clients, as no constructor calls out.
 */
import type { AppDeps } from './deps';
import { Holdings } from './common/holdings';
import { CustodyKeys } from './common/custody';
import { Passkeys } from './passkeys/service';
import { StepUp } from './common/step-up';
import { StepUpActions } from './common/step-up-actions';
import { IdentityChecks } from './auth/identity-checks';
import { BankVerificationService } from './bank/service';
import { BankConsentService } from './bank/consent-service';
import { ChargeService } from './charge/service';
import { PayoutService } from './payout/service';
import { TransferService } from './transfer/service';
import { SpendingPolicy } from './transfer/spending-policy';
import { AddressBook } from './transfer/address-book';
import { TransferKeyService } from './wallet/transfer-key-service';
import { SwapService } from './exchange/swap-service';
import { RegistrationService } from './registration/service';
import { MAX_SIGN_IN_ID_CARD_ATTEMPTS, SignInService } from './auth/sign-in-service';
import { Devices } from './account/devices';
import { WalletBackups } from './account/backups';
import { RecoveryService } from './account/recovery-service';
import { EmailVerificationService } from './account/email-service';
import { DeploymentService } from './wallet/deploy-service';
import { KeyRotationService } from './key-rotation/service';
import { DidKeyService } from './did/service';
import { WebhookService } from './webhooks/service';
import { OperatorCodec } from './operators/codec';
import { Screening } from './compliance/screening';
import { TravelRule } from './compliance/travel-rule';
import { Monitoring } from './compliance/monitoring';
import { ComplianceService } from './compliance/service';
import { InboundTravelRule } from './compliance/inbound';
import { CodeInbound } from './compliance/code-inbound';
import { codeMemberKeysWorkflow } from '../workflows/compliance';
import { CexAccountService } from './cex/service';
import { GasSponsorships } from './common/gas-sponsorship';
import { TestClockService } from './test-clock/service';

export function buildServices(deps: AppDeps) {
  const { config, orm, temporal, encryption, tokens, networks, providers } = deps;
  const taskQueue = config.TEMPORAL_TASK_QUEUE;
  const { notices } = deps;
  const passkeys = new Passkeys(
    orm,
    {
      rpId: config.WEBAUTHN_RP_ID,
      rpName: config.WEBAUTHN_RP_NAME,
      origins: config.WEBAUTHN_ORIGINS.split(','),
      challengeTtlSeconds: 300,
      holdSeconds: config.NEW_PASSKEY_HOLD_SECONDS,
    },
    notices,
    deps.sessions,
  );
  const devices = new Devices({ orm, notices, sessions: deps.sessions });
  const signIns = new SignInService({
    orm,
    temporal,
    identity: deps.identity,
    encryption,
    taskQueue,
    rateLimits: deps.rateLimits,
    tokens,
    devices,
    passkeys,
    ttlSeconds: config.SIGN_IN_TTL_SECONDS,
    passResultWaitSeconds: config.PASS_RESULT_WAIT_SECONDS,
    maxIdCardAttempts: MAX_SIGN_IN_ID_CARD_ATTEMPTS,
    holdSeconds: config.NEW_DEVICE_HOLD_SECONDS,
    unnotifiedHoldSeconds: config.NEW_DEVICE_HOLD_UNNOTIFIED_SECONDS,
  });
  // The route table declares every route's step-up here as it is built (api/route-table.ts).
  const stepUpActions = new StepUpActions();
  const identityChecks = new IdentityChecks({
    orm,
    signIns,
    actions: stepUpActions,
    freshSeconds: config.STEP_UP_IDENTITY_SECONDS,
  });
  const stepUp = new StepUp(deps.pins, passkeys, identityChecks);
  const holdings = new Holdings({ orm, networks, providers, solanaChains: deps.solanaChains, cache: deps.sessions });
  const custody = new CustodyKeys({ orm, temporal, taskQueue });
  const prepareTtlSeconds = config.DEPLOY_PREPARE_TTL_SECONDS;
  const gas = new GasSponsorships({ orm, temporal, taskQueue, dailyBudgetKrw: config.GAS_BUDGET_DAILY_KRW });
  const addressBook = new AddressBook({ orm, networks, coolingOffSeconds: config.ADDRESS_COOLING_OFF_SECONDS });
  const screening = new Screening({ orm, screening: deps.sanctions });
  const policy = new SpendingPolicy({
    orm,
    prices: deps.prices,
    addressBook,
    defaults: {
      perTransferKrw: BigInt(config.TRANSFER_LIMIT_PER_TRANSFER_KRW),
      dailyKrw: BigInt(config.TRANSFER_LIMIT_DAILY_KRW),
      passkeyAboveKrw: BigInt(config.TRANSFER_PASSKEY_ABOVE_KRW),
    },
  });
  /** What every service preparing and executing signed operations (slots, gas, custody) is built on. */
  const signing = { orm, temporal, networks, providers, taskQueue, prepareTtlSeconds, passkeys, gas };
  const bankVerifications = new BankVerificationService({
    orm,
    temporal,
    encryption,
    bank: deps.bank,
    taskQueue,
    rateLimits: deps.rateLimits,
    verificationTtlSeconds: config.BANK_VERIFICATION_TTL_SECONDS,
    verificationMaxAttempts: config.BANK_VERIFICATION_MAX_ATTEMPTS,
  });
  return {
    notices,
    passkeys,
    stepUp,
    stepUpActions,
    identityChecks,
    devices,
    signIns,
    holdings,
    custody,
    gas,
    addressBook,
    screening,
    policy,
    registrations: new RegistrationService({
      orm,
      temporal,
      encryption,
      identity: deps.identity,
      taskQueue,
      registrationTtlSeconds: config.REGISTRATION_TTL_SECONDS,
      passResultWaitSeconds: config.PASS_RESULT_WAIT_SECONDS,
      signIns,
    }),
    backups: new WalletBackups({ orm, notices }),
    recoveries: new RecoveryService({
      ...signing,
      recoveryAddress: config.RECOVERY_ADDRESS,
      recoveryDelaySeconds: config.RECOVERY_DELAY_SECONDS,
      cooldownSeconds: config.RECOVERY_COOLDOWN_SECONDS,
      pollSeconds: config.RECOVERY_POLL_SECONDS,
      screening,
    }),
    emails: new EmailVerificationService({
      orm,
      temporal,
      encryption,
      taskQueue,
      verificationTtlSeconds: config.EMAIL_VERIFICATION_TTL_SECONDS,
      verificationMaxAttempts: config.EMAIL_VERIFICATION_MAX_ATTEMPTS,
      notices,
      undoSeconds: config.EMAIL_CHANGE_UNDO_SECONDS,
      sessions: deps.sessions,
    }),
    deployments: new DeploymentService({
      ...signing,
      custody,
      screening,
      transferSigner: { validitySeconds: config.TRANSFER_SIGNER_VALIDITY_SECONDS, dailyCaps: deps.transferSignerCaps },
    }),
    swaps: new SwapService({
      ...signing,
      quotes: deps.quotes,
      limits: deps.swapLimits,
      holdings,
      solanaMaxFeeLamports: config.SOLANA_SWAP_MAX_FEE_LAMPORTS,
    }),
    transferKeys: new TransferKeyService({
      ...signing,
      custody,
      maxValiditySeconds: config.TRANSFER_SIGNER_VALIDITY_SECONDS,
    }),
    rotations: new KeyRotationService({
      ...signing,
      screening,
      retryWindowSeconds: config.KEY_ROTATION_RETRY_WINDOW_SECONDS,
    }),
    didKeys: new DidKeyService({
      ...signing,
      didNetworkId: config.DID_NETWORK_ID,
      keyValiditySeconds: config.DID_KEY_VALIDITY_SECONDS,
    }),
    bankVerifications,
    payouts: new PayoutService({
      orm,
      temporal,
      taskQueue,
      encryption,
      verifications: bankVerifications,
      notices,
      maxAmountKrw: config.PAYOUT_MAX_AMOUNT_KRW,
      dailyLimitKrw: config.PAYOUT_DAILY_LIMIT_KRW,
    }),
    bankConsents: new BankConsentService({
      orm,
      encryption,
      bank: deps.bank,
      redirectUri:
        config.BANK_CONSENT_REDIRECT_URI ??
        `${config.PUBLIC_BASE_URL ?? `http://127.0.0.1:${config.API_PORT}`}/api/v1/bank/consent/callback`,
      returnUris: config.BANK_CONSENT_RETURN_URIS.split(',')
        .map((u) => u.trim())
        .filter(Boolean),
    }),
    charges: new ChargeService({
      orm,
      temporal,
      taskQueue,
      webhookSecret: config.BANK_WEBHOOK_SECRET,
      chargeMaxAmountKrw: config.CHARGE_MAX_AMOUNT_KRW,
      cache: deps.sessions,
    }),
    transfers: new TransferService({
      orm,
      temporal,
      networks,
      providers,
      solanaChains: deps.solanaChains,
      holdings,
      taskQueue,
      policy,
      gas,
      addressBook,
      passkeys,
      custody,
      screening,
      travelRule: new TravelRule({
        counterparts: deps.travelRuleCounterparts,
        codeVasps: deps.codeVasps,
        thresholdKrw: BigInt(config.TRAVEL_RULE_THRESHOLD_KRW),
        addressBook,
      }),
      monitoring: new Monitoring({
        orm,
        rules: {
          largeKrw: BigInt(config.MONITORING_LARGE_KRW),
          structuringKrw: BigInt(config.MONITORING_STRUCTURING_KRW),
          fanOutRecipients: config.MONITORING_FAN_OUT_RECIPIENTS,
          newRecipientMinutes: config.MONITORING_NEW_RECIPIENT_MINUTES,
          newDeviceHours: config.MONITORING_NEW_DEVICE_HOURS,
        },
      }),
      encryption,
      travelRuleCallbackBase: trpPublicUrl(config),
      travelRuleTimeoutSeconds: config.TRAVEL_RULE_TIMEOUT_SECONDS,
      waitSeconds: config.TRANSFER_WAIT_SECONDS,
      workflowVersion: config.TRANSFER_WORKFLOW_VERSION,
      reviewAfterAttempts: config.TRANSFER_REVIEW_AFTER_ATTEMPTS,
    }),
    cexAccounts: new CexAccountService({
      orm,
      encryption,
      cex: deps.cex,
      exchanges: deps.exchanges,
      provider: config.CEX_PROVIDER,
      redirectUris: config.CEX_REDIRECT_URIS.split(',').map((u) => u.trim()),
    }),
    codeInbound: deps.codeIdentity
      ? new CodeInbound({
          orm,
          encryption,
          networks: deps.networks,
          self: deps.codeIdentity,
          retentionDays: config.COMPLIANCE_RETENTION_DAYS,
          rateLimits: deps.rateLimits,
          members: deps.codeVasps,
          memberKeys: (entityId) =>
            temporal.workflow.execute(codeMemberKeysWorkflow, {
              workflowId: `code-member-keys-${entityId}`,
              taskQueue,
              workflowIdConflictPolicy: 'USE_EXISTING',
              workflowExecutionTimeout: '30 seconds',
              args: [{ entityId }],
            }),
        })
      : undefined,
    inboundTravelRule: new InboundTravelRule({
      orm,
      encryption,
      counterparts: deps.travelRuleCounterparts,
      networks: deps.networks,
      publicUrl: trpPublicUrl(config),
      retentionDays: config.COMPLIANCE_RETENTION_DAYS,
      rateLimits: deps.rateLimits,
    }),
    compliance: new ComplianceService({
      orm,
      temporal,
      encryption,
      taskQueue,
      maxListAgeHours: config.SANCTIONS_LIST_MAX_AGE_HOURS,
      providerConfigured: Boolean(config.SCREENING_PROVIDER_URL),
    }),
    webhooks: new WebhookService({
      orm,
      temporal,
      encryption,
      taskQueue,
      policy: {
        allowHttp: config.NODE_ENV !== 'production',
        allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      },
      retry: {
        initialSeconds: config.WEBHOOK_RETRY_INITIAL_SECONDS,
        maximumSeconds: config.WEBHOOK_RETRY_MAX_SECONDS,
        giveUpSeconds: config.WEBHOOK_GIVE_UP_SECONDS,
      },
      pollSeconds: config.WEBHOOK_POLL_SECONDS,
    }),
    operatorCodec: new OperatorCodec(encryption),
    testClock: new TestClockService({ orm, temporal, taskQueue, enabled: config.TEST_CLOCK_ENABLED }),
  };
}

export type Services = ReturnType<typeof buildServices>;

/** Our TRP origin: TRAVEL_RULE_PUBLIC_URL, or the TRP listener on this host. */
export const trpPublicUrl = (config: { TRAVEL_RULE_PUBLIC_URL?: string; TRAVEL_RULE_PORT?: number }): string =>
  config.TRAVEL_RULE_PUBLIC_URL ?? `https://localhost:${config.TRAVEL_RULE_PORT ?? 8443}`;
