package bulkhead.stub

/** The third party's customers: deterministic data for ids 1..size, so tests can check every field. */
final class CustomerDirectory(val size: Int):
  import CustomerDirectory.*

  def find(id: Long): Option[Customer] =
    if id < 1 || id > size then None
    else
      val i = id.toInt
      Some(Customer(i, s"${FirstNames(i % FirstNames.size)} ${LastNames((i / 7) % LastNames.size)}",
        Segments(i % Segments.size), Countries(i % Countries.size)))

object CustomerDirectory:
  final case class Customer(id: Int, name: String, segment: String, country: String)
  private val FirstNames = Vector("Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Leslie",
    "Margaret", "Niklaus", "Radia", "Tony")
  private val LastNames = Vector("Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson",
    "Lamport", "Hamilton", "Wirth", "Perlman", "Hoare")
  private val Segments = Vector("retail", "smb", "enterprise", "public")
  private val Countries = Vector("ES", "GB", "FR", "DE", "JP", "US", "BR", "IN")
