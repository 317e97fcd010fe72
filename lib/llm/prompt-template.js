import { typeError } from '../errors.js';
const VARIABLE = /\{\{\s*([A-Za-z_][\w]*)\s*\}\}/g;
/** What is left of a Jinja tag, expression or comment once the plain variables are removed. */
const UNRENDERED = /\{%[\s\S]{0,40}|\{\{[\s\S]{0,40}|\{#[\s\S]{0,40}/;
/**
 * A prompt with `{{name}}` placeholders. Construction checks the template uses exactly
 * the allowed variables, so a typo fails at startup rather than sending an empty prompt.
 */
export class PromptTemplate {
    template;
    constructor(template, variables, name = 'options.prompt') {
        if (typeof template !== 'string' || template.trim() === '')
            throw typeError(`${name} must be a non-empty string`);
        // Jinja-style constructs (Haystack's prompts) would reach the model as literal text: refuse them.
        const construct = UNRENDERED.exec(template.replace(VARIABLE, ''));
        if (construct)
            throw typeError(`${name} uses template syntax that is not rendered: ${JSON.stringify(construct[0])}. Only plain ` +
                `${variables.map((v) => `{{${v}}}`).join(' and ')} are substituted (no loops, filters, attributes or ` +
                'comments); {{documents}} is already the numbered list of documents');
        const used = new Set([...template.matchAll(VARIABLE)].map((m) => m[1]));
        const unknown = [...used].filter((v) => !variables.includes(v));
        const missing = variables.filter((v) => !used.has(v));
        if (unknown.length > 0 || missing.length > 0) {
            const want = variables.map((v) => `{{${v}}}`).join(' and ');
            const got = [
                ...(missing.length ? [`missing ${missing.join(', ')}`] : []),
                ...(unknown.length ? [`unknown ${unknown.join(', ')}`] : []),
            ];
            throw typeError(`${name} must contain exactly the variables ${want} (${got.join('; ')})`);
        }
        this.template = template;
    }
    /** Substitutes every placeholder in one pass, so a value containing `{{query}}` is not expanded again. */
    render(values) {
        return this.template.replace(VARIABLE, (_, v) => values[v]);
    }
}
