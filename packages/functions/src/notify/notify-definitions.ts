// The six notification functions as family definitions: JSON body in, JSON answer out, a per-minute limit each.
import { defineFunction, type FunctionDefinition } from '../family/function-definition.js';
import { NOTIFY_FUNCTIONS, type NotifyDeps } from './notify-handlers.js';

export const notificationFunctions: readonly FunctionDefinition<NotifyDeps>[] = NOTIFY_FUNCTIONS.map((fn) =>
  defineFunction<NotifyDeps>({
    name: fn.name,
    access: fn.serviceRoleOnly ? 'service' : 'user',
    limit: { max: fn.perMinute, per: 'minute' },
    handle: async (req, deps) => fn.handler(deps, req.caller, await req.json()),
  }),
);
