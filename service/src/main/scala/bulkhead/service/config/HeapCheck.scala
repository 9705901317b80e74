package bulkhead.service.config

/** What `serve` does when its heap is short of what its settings may make it hold (`server.heap-check`). */
enum HeapCheck(val key: String):
  /** It refuses to start (exit 2), naming the figures and the settings to lower. */
  case Refuse extends HeapCheck("refuse")
  /** It starts anyway and says so in one WARN line with the same figures. */
  case Warn extends HeapCheck("warn")
