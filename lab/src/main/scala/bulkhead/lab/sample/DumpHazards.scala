package bulkhead.lab.sample

import com.typesafe.config.{Config, ConfigFactory}

import scala.jdk.CollectionConverters.*

/**
 * The JDK builds where a thread dump can crash the JVM it dumps while virtual threads mount and unmount: a table of
 * OpenJDK defects kept as data (`dump-hazards.conf` beside this class), each with the dump it affects, the release that
 * brought it and the first update of each release line known to carry its fix. A release line without a verified fix
 * counts as affected.
 */
final case class DumpHazards(defects: Seq[DumpDefect]):
  /** The defects of `dump` that `jdk` has. */
  def of(dump: DumpKind, jdk: JdkVersion): Seq[DumpDefect] = defects.filter(d => d.dump == dump && d.affects(jdk))

/** Which thread dump a defect affects. */
enum DumpKind(val key: String):
  /** `jcmd <pid> Thread.dump_to_file` and `HotSpotDiagnosticMXBean.dumpThreads`: the dumps that list virtual threads. */
  case Json extends DumpKind("json")
  /** `ThreadMXBean.getThreadInfo` outside a safepoint: the lab never calls it. */
  case ThreadInfo extends DumpKind("thread-info")

/**
 * One defect: `fixed` maps a feature release to its first update carrying the fix; `withVirtualThreads`: it needs
 * virtual threads mounting or unmounting, so a JVM that has never started one is not exposed to it.
 */
final case class DumpDefect(id: String, dump: DumpKind, since: Int, fixed: Map[Int, JdkVersion], summary: String,
    sources: Seq[String], withVirtualThreads: Boolean = true):
  def affects(jdk: JdkVersion): Boolean =
    jdk.feature >= since && !fixed.get(jdk.feature).exists(jdk >= _)

object DumpHazards:
  /** The table shipped with the lab. */
  lazy val Known: DumpHazards = read(ConfigFactory.parseResources(getClass, "dump-hazards.conf"))
    .fold(e => throw IllegalStateException(s"dump-hazards.conf: $e"), identity)

  def read(c: Config): Either[String, DumpHazards] =
    val read = c.getConfigList("defects").asScala.toSeq.map(defect)
    read.collectFirst { case Left(e) => e }.toLeft(DumpHazards(read.collect { case Right(d) => d }))

  private def defect(d: Config): Either[String, DumpDefect] =
    val id = d.getString("id")
    for
      dump <- DumpKind.values.find(_.key == d.getString("dump")).toRight(s"$id: unknown dump '${d.getString("dump")}'")
      fixed <- d.getConfig("fixed").root().keySet().asScala.toSeq.map { release =>
          val update = d.getConfig("fixed").getString(s"\"$release\"")
          for
            feature <- release.toIntOption.toRight(s"$id: fixed names '$release', not a feature release")
            version <- JdkVersion.parse(update).filter(_.feature == feature)
              .toRight(s"$id: fixed $release = '$update' is not an update of $release")
          yield feature -> version
        }.foldLeft[Either[String, Map[Int, JdkVersion]]](Right(Map.empty))((acc, e) => acc.flatMap(m => e.map(m + _)))
    yield DumpDefect(id, dump, d.getInt("since"), fixed, d.getString("summary"), d.getStringList("sources").asScala.toSeq,
      d.getBoolean("with-virtual-threads"))
