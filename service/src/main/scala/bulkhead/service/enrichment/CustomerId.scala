package bulkhead.service.enrichment

/** Validates the `{id}` of `/customers/{id}`: a positive decimal integer. */
object CustomerId:
  private val MaxDigits = 9

  def parse(raw: String): Either[String, Int] =
    if raw.isEmpty then Left("customer id is empty")
    else if raw.length > MaxDigits || !raw.forall(c => c >= '0' && c <= '9') then
      Left(s"customer id must be a positive integer of at most $MaxDigits digits")
    else
      val id = raw.toInt
      if id <= 0 then Left("customer id must be positive") else Right(id)
