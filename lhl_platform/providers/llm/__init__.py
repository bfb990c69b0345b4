"""LLM providers behind the ChatModel protocol: OpenAI (and OpenAI-compatible servers), Anthropic, Gemini."""
