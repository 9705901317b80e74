package bulkhead.stub

/** Where the admin paths and /metrics are served: on the SOAP listener (only when it is loopback) or on their own. */
enum AdminListener:
  case OnSoapListener
  case Separate(host: String, port: Int)
