package bulkhead.lab.model

/** A limit on throughput: what it is, and the requests per second it allows. */
final case class Bound(what: String, perSecond: Double)
