"""The clause suite: CUAD clause extraction, judged and debated (docs/method.md). Its definition is `suite.SUITE`."""
