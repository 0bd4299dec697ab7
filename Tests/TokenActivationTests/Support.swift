@_exported import TestSupport
