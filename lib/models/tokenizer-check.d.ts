export declare function checkTokenizer(path: string): Promise<void>;
