import { hasMethod } from '../internal/validate.js';
/** Whether `v` has a `chat` method, i.e. can be passed where a `ChatGenerator` is taken. */
export function isChatGenerator(v) {
    return hasMethod(v, 'chat');
}
