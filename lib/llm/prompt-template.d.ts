/**
 * A prompt with `{{name}}` placeholders. Construction checks the template uses exactly
 * the allowed variables, so a typo fails at startup rather than sending an empty prompt.
 */
export declare class PromptTemplate {
    readonly template: string;
    constructor(template: unknown, variables: readonly string[], name?: string);
    /** Substitutes every placeholder in one pass, so a value containing `{{query}}` is not expanded again. */
    render(values: Record<string, string>): string;
}
