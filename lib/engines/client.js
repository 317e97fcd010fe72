import { RagrankError, typeError } from '../errors.js';
import { isPlainObject } from '../internal/validate.js';
import { clientTransport } from './transport.js';
/**
 * The transport for `options`: the given client's, or one of a client made from `node` by `load()`, which
 * requires the optional peer dependency only then (so the rest of ragrank never loads a client).
 */
export function transportFor(options, engine, pkg, load) {
    if (!isPlainObject(options))
        throw typeError('options must be an object');
    if (options.client !== undefined) {
        if (options.node !== undefined)
            throw typeError('give options.client or options.node, not both');
        return clientTransport(options.client, engine);
    }
    if (typeof options.node !== 'string' || !/^https?:\/\//.test(options.node))
        throw typeError(`options.client (a ${engine} client) or options.node (a URL such as http://127.0.0.1:9200) is required`);
    let Client;
    try {
        Client = load();
    }
    catch (e) {
        throw Object.assign(new RagrankError('ERR_ENGINE', `options.node needs the optional peer dependency ${pkg}: npm install ${pkg}`), { cause: e });
    }
    return clientTransport(new Client({ node: options.node }), engine, true);
}
