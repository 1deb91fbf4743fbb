import neostandard from 'neostandard'

// neostandard's rules without its style ones: Prettier owns the layout (see .prettierrc.json).
export default [
  ...neostandard({ ts: true, noStyle: true, ignores: ['**/dist/**', '**/.tap/**', 'data/**'] }),
  // `void promise` marks a promise deliberately left to run (a reply sent from a callback, a mail in the background).
  { rules: { 'no-void': ['error', { allowAsStatement: true }] } },
]
