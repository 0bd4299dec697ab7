extension DeeplinkError: CodedError {}
