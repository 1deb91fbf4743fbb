// Wire shapes of the attachments API; filled in by its issue.
export {}
