package bulkhead.lab.model

/**
 * A cap as the lab names it (`pool blocking-pool`, `cpu`, `errors`): the resource and, for a pool, which pool. What a
 * diagnosis case expects (`expect.resource`) and what a verdict names are compared as this value, not as text.
 */
final case class CapName(resource: Resource, pool: Option[String] = None):
  def text: String = pool.fold(resource.key)(p => s"${resource.key} $p")
  /** What a case expects matches this name: the same resource, and the same pool when it names one. */
  def matches(expected: CapName): Boolean = resource == expected.resource && expected.pool.forall(pool.contains)
  override def toString: String = text

object CapName:
  /** Resources named with their subject: which pool (or which event loop's pool). */
  val Subjected: Set[Resource] = Set(Resource.Pool, Resource.EventLoop)

  /** Reads `pool <name>` or a resource's key alone; anything else is refused with the valid names listed. */
  def parse(text: String): Either[String, CapName] =
    val valid = Resource.values.map(r => if r == Resource.Pool then "pool <name>" else r.key).mkString(", ")
    val (key, rest) = text.trim.span(!_.isWhitespace)
    val pool = rest.trim
    Resource.values.find(_.key == key) match
      case Some(Resource.Pool) if pool.isEmpty => Left(s"'$text' names no pool: pool <name>, e.g. pool blocking-pool")
      case Some(Resource.Pool) => Right(CapName(Resource.Pool, Some(pool)))
      case Some(r) if pool.isEmpty => Right(CapName(r))
      case Some(r) if Subjected(r) => Right(CapName(r, Some(pool)))
      case Some(_) => Left(s"'$text': only a pool is named after its resource; expected one of $valid")
      case None => Left(s"unknown resource '$text', expected one of $valid")
