export declare const packageRequire: NodeJS.Require;
