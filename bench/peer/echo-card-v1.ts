/**
 * The card the v1.0 peers (@a2a-js/sdk 1.3.0 on express, and its gRPC server) serve for the echo
 * agent: the same agent, reached through the interfaces each one lists.
 */
import type { AgentCard } from 'a2a-sdk-v1';

export function echoCardV1(supportedInterfaces: AgentCard['supportedInterfaces']): AgentCard {
  return {
    name: 'Bench Echo Agent',
    description: 'Answers every message with one artifact holding its text.',
    version: '1.0.0',
    supportedInterfaces,
    provider: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Echoes the text it receives',
        tags: ['echo'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}
