package bulkhead.lab.testkit

import bulkhead.lab.model.Target
import bulkhead.lab.process.{ClassData, Launch}
import bulkhead.lab.record.{RecordJson, RunRecord}

import java.nio.file.{Files, Path}
import scala.io.Source
import scala.jdk.CollectionConverters.*
import scala.util.Using

/** Recorded real outputs (wrk runs, thread dumps) and the launch of the real service built by this reactor. */
object Fixtures:
  def text(name: String): String = Using.resource(Source.fromResource(s"fixtures/$name"))(_.mkString)

  /** A directory of recorded runs (fixtures/records/<name>: result.json files as a benchmark wrote them). */
  def recordsDir(name: String): Path = Path.of(getClass.getResource(s"/fixtures/records/$name").toURI)

  /** The runs of fixtures/records/<name>, read as the lab reads them. */
  def records(name: String): Seq[RunRecord] =
    RecordJson.readAll(recordsDir(name)).fold(e => throw IllegalStateException(e), identity)

  /** A recorded fault run (fixtures/faults/<name>/result.json), read as the lab reads it. */
  def faultRun(name: String): RunRecord =
    RecordJson.read(Path.of(getClass.getResource(s"/fixtures/faults/$name/${RecordJson.FileName}").toURI))
      .fold(e => throw IllegalStateException(e), identity)

  private def classpath(module: String): String =
    val dir = Path.of("..", module).toAbsolutePath.normalize
    val deps = dir.resolve("target/runtime-classpath.txt")
    require(Files.exists(deps), s"$module is not built ($deps missing): run ./bulkhead test from the repository root")
    s"${ownClasses(dir)}:${Files.readString(deps).trim}"

  /**
   * A module's own classes: its jar when it was packaged after target/classes last changed (so that the JVMs started
   * from it can map a class-data archive, which HotSpot makes only of jars), else target/classes.
   */
  private def ownClasses(dir: Path): Path =
    val classes = dir.resolve("target/classes")
    val jars = Option(dir.resolve("target").toFile.listFiles((_, n) => n.startsWith("bulkhead-") && n.endsWith(".jar")))
      .toSeq.flatten.map(_.toPath)
    def newest(p: Path): Long =
      val files = Files.walk(p)
      try files.iterator().asScala.filter(Files.isRegularFile(_)).map(Files.getLastModifiedTime(_).toMillis)
        .maxOption.getOrElse(0L)
      finally files.close()
    jars match
      case Seq(jar) if !Files.isDirectory(classes) || Files.getLastModifiedTime(jar).toMillis >= newest(classes) => jar
      case _ => classes

  /**
   * Where the tests' JVMs keep their class-data archives ([[ClassData]]): this build's; those of an earlier build are
   * deleted at the first launch.
   */
  private val classData = Path.of("target", "class-data").toAbsolutePath

  /** How the lab's tests start the service and the stub: this JVM's java, the flags the launcher would use. */
  def launch: Launch = launched

  private lazy val launched: Launch =
    val java = Path.of(System.getProperty("java.home"), "bin", "java").toString
    val feature = Runtime.version().feature()
    val flags = (if feature >= 21 then Seq("--add-opens=java.base/java.lang=ALL-UNNAMED") else Nil) ++
      (if feature >= 24 then Seq("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow") else Nil)
    // A peer not built is left out: a test that starts it fails there, naming it (Stack.peer).
    val built = Target.JvmPeers.filter(p => Files.exists(Path.of("..", p.module, "target/runtime-classpath.txt")))
    val launch = Launch(java, flags, classpath(Target.Bulkhead.module), classpath("stub"),
      built.map(p => p -> classpath(p.module)).toMap, Some(classData))
    ClassData.prune(classData, java, Seq(launch.serviceClasspath, launch.stubClasspath) ++ launch.peers.values)
    launch
