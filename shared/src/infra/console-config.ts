// The web console's settings (README "Configuration"): who may sign up, and the plan new
// accounts get. Read from the environment once; a bad value names its variable. Shared:
// the gateway's console uses them, and `npm start` checks them before starting anything.
import { ConfigError } from './config.js';
import { PLANS, type Plan } from '../domain/plans.js';

export const SIGNUP_MODES = ['open', 'invite', 'closed'] as const;
export type SignupMode = (typeof SIGNUP_MODES)[number];

export interface ConsoleConfig {
  /** open: anyone may sign up; invite: only with an invite link; closed: nobody. */
  signup: SignupMode;
  /** The plan of a new account (and so of its keys). */
  defaultPlan: Plan;
}

export function consoleConfig(env: Record<string, string | undefined> = process.env): ConsoleConfig {
  const signup = (env.CONSOLE_SIGNUP?.trim().toLowerCase() || 'invite') as SignupMode;
  if (!SIGNUP_MODES.includes(signup)) throw new ConfigError('CONSOLE_SIGNUP', `must be one of ${SIGNUP_MODES.join(', ')}, got "${env.CONSOLE_SIGNUP}"`);
  const defaultPlan = (env.CONSOLE_DEFAULT_PLAN?.trim().toLowerCase() || 'free') as Plan;
  if (!PLANS.includes(defaultPlan)) throw new ConfigError('CONSOLE_DEFAULT_PLAN', `must be one of ${PLANS.join(', ')}, got "${env.CONSOLE_DEFAULT_PLAN}"`);
  return { signup, defaultPlan };
}
