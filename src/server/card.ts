/**
 * Stage 1 of createServer: what the agent declares, checked before anything opens, and the card
 * built from it. A declaration the card could not honour, a card that breaks the A2A rules and a
 * signing key that cannot sign it all stop the start here.
 */
import type { AgentCard, AgentDefinition } from '../agent.js';
import { checkSkillSecurity, createAuthGate, type AuthGate } from '../auth/gate.js';
import type { Settings } from '../config.js';
import type { Logger } from '../log.js';
import { checkCard, type CardOptions } from '../protocol/card.js';
import type { CardSigner, CardSigningOptions } from '../protocol/card-signing.js';
import { cardExtensions, checkExtensions } from '../protocol/extensions.js';

export interface CardStage {
  readonly gate: AuthGate | undefined;
  /** The capabilities served: the agent's declaration, less what the settings turn off. */
  readonly capabilities: CardOptions['capabilities'];
  readonly cardOptions: CardOptions;
  readonly signer: CardSigner | undefined;
}

/**
 * The card signer from the `cardSigning` option or the SERVICE_CARD_SIGNING_* settings, tried
 * once on the checked card so that a key jose cannot sign with stops the start, not a request.
 */
async function cardSignerOf(given: CardSigningOptions | undefined, settings: Settings, sample: AgentCard): Promise<CardSigner | undefined> {
  const key = given?.key ?? settings.cardSigningKey;
  if (key === undefined) return undefined;
  const kid = given?.kid ?? settings.cardSigningKid;
  const jku = given?.jku ?? settings.cardSigningJku;
  const alg = given?.alg ?? settings.cardSigningAlg;
  // jose is loaded only by servers that sign their card.
  const { createCardSigner } = await import('../protocol/card-signing.js');
  const signer = createCardSigner({ key, ...(kid ? { kid } : {}), ...(jku ? { jku } : {}), ...(alg ? { alg } : {}) });
  try {
    await signer.sign(sample);
  } catch (err) {
    throw new TypeError(`card signing key: a test signature failed (${err instanceof Error ? err.message : String(err)})`, { cause: err });
  }
  return signer;
}

export async function cardStage(
  agent: AgentDefinition,
  settings: Settings,
  logger: Logger,
  cardSigning: CardSigningOptions | undefined,
): Promise<CardStage> {
  checkSkillSecurity(agent.card.skills, agent.auth);
  checkExtensions(agent.capabilities?.extensions);
  const gate = agent.auth ? createAuthGate(agent.auth, logger) : undefined;
  const declared = agent.capabilities ?? {};
  const capabilities = {
    streaming: (declared.streaming ?? false) && settings.streaming,
    pushNotifications: (declared.pushNotifications ?? false) && settings.pushNotifications,
    stateTransitionHistory: declared.stateTransitionHistory ?? true,
    ...(declared.extensions && declared.extensions.length > 0 ? { extensions: cardExtensions(declared.extensions) } : {}),
  };
  const cardOptions: CardOptions = {
    agent,
    capabilities,
    preferredTransport: settings.preferredTransport,
    ...(gate ? { security: gate.card } : {}),
  };
  const signer = await cardSignerOf(cardSigning, settings, checkCard(cardOptions));
  return { gate, capabilities, cardOptions, signer };
}
