package bulkhead.service.enrichment

/**
 * The stores handed to routees: one connection each (as a client that cannot multiplex needs) or one shared, by
 * configuration.
 */
trait ProfileStores:
  def forRoutee(index: Int): ProfileStore
  /** Connections currently open to the store. */
  def openConnections: Int
  def close(): Unit
