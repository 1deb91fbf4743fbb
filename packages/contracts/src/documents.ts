// Wire shapes of the documents API; filled in by its issue.
export {}
