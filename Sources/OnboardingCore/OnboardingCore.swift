// The onboarding core: PowerAuth device activation and authenticated requests.
