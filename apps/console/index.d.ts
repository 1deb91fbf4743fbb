/** The built console (`vite build` output): the gateway serves this folder at /console. */
export declare const dist: string
