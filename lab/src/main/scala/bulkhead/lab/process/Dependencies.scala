package bulkhead.lab.process

import java.nio.file.Path

/**
 * What the service calls, started for a run on loopback, each only when asked for: redis-server seeded with loyalty
 * profiles, the SOAP stub, a throwaway PostgreSQL. Every lab command brings them up here, and starts the service
 * pointed at them with [[serviceFlags]]. `redis` follows a restart ([[restartRedis]]: a fault that killed it).
 */
final class Dependencies private (stack: Stack, dir: Path, customers: Option[Int],
    @volatile private var redisNow: Option[Served], val stub: Option[Served], val postgres: Option[Served]):
  def redis: Option[Served] = redisNow

  /** The service's flags that point it at these. */
  def serviceFlags: Seq[String] =
    redis.toSeq.flatMap(r => Seq("--redis-uri", Dependencies.redisUri(r))) ++
      stub.toSeq.flatMap(st => Seq("--soap-endpoint", st.url("/soap"))) ++
      postgres.toSeq.flatMap(pg => Seq("--jdbc-url", Postgres.jdbcUrl(pg)))

  /** Each one's pid by name (`stub`, `redis`, `postgres`): whose CPU a run reads beside the service's. */
  def pids: Map[String, Long] =
    stub.map("stub" -> _.child.pid).toMap ++ redis.map("redis" -> _.child.pid) ++ postgres.map("postgres" -> _.child.pid)

  /** redis-server started again on its port (the service's --redis-uri holds) and seeded again. */
  def restartRedis(): Served =
    val old = redis.getOrElse(throw IllegalStateException("no redis-server was started"))
    val again = Dependencies.seeded(stack.redis(old.port), customers)
    redisNow = Some(again)
    again

  /** Stops every one, the last started first, and deletes PostgreSQL's data. */
  def stop(): Unit =
    postgres.foreach(Postgres.stop(dir, _))
    Seq(stub, redis).flatten.foreach(_.child.stop())
    if postgres.isDefined then Postgres.drop(dir)

object Dependencies:
  def redisUri(redis: Served): String = s"redis://127.0.0.1:${redis.port}"

  /**
   * Starts what is asked for in `dir`: redis-server with `redisCustomers` profiles, the stub with `stubArgs` (its
   * latency, faults, customers), PostgreSQL. One that does not start stops the ones started before it.
   */
  def start(stack: Stack, dir: Path, redisCustomers: Option[Int], stubArgs: Option[Seq[String]],
      postgres: Boolean = false): Dependencies =
    var started = List.empty[Served]
    def keep(s: Served): Served =
      started ::= s
      s
    try
      val redis = redisCustomers.map(n => seeded(keep(stack.redis()), Some(n)))
      val stub = stubArgs.map(args => keep(stack.stub(args)))
      val pg = Option.when(postgres)(keep(Postgres.start(dir)))
      Dependencies(stack, dir, redisCustomers, redis, stub, pg)
    catch
      case e: Exception =>
        started.foreach(_.child.stop())
        if postgres then Postgres.drop(dir)
        throw e

  private def seeded(redis: Served, customers: Option[Int]): Served =
    customers.foreach(n => SeedRedis.load(redisUri(redis), n))
    redis
