package bulkhead.service.config

/** What carries a set of sockets: the server's (`server.transport`) or the SOAP client's (`soap.transport`). */
enum SocketTransport(val key: String):
  /** bulkhead's selector threads: a loop reads, the connection's stream writes, no actor between them. */
  case Selector extends SocketTransport("selector")
  /** Pekko's TCP actors, as Pekko HTTP's own bind and client connections. */
  case Pekko extends SocketTransport("pekko")
