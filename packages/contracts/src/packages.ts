// Wire shapes of the packages API; filled in by its issue.
export {}
