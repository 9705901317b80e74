package bulkhead.lab.testkit

import bulkhead.lab.process.Children

import java.nio.file.attribute.PosixFilePermissions
import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*
import scala.util.Try

/**
 * The tests' temporary files and directories, all under one directory of this JVM that is deleted with everything in
 * it when the JVM exits, once the processes the tests started are stopped: a run of the suite, passed or failed, leaves
 * nothing in the system's temporary directory. A spec that must read a file after a failure reads it into its message.
 */
object Scratch:
  private val Prefix = "bulkhead-lab-tests-"

  private lazy val root: Path =
    val dir = Files.createTempDirectory(s"$Prefix${ProcessHandle.current().pid()}-")
    // Others may pass through it, not list it: PostgreSQL runs as its own user in a directory under it.
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"))
    // Children is made here, not first in the hook: made during the JVM's exit, it could not add its own hook and
    // would fail, and nothing would be deleted.
    val children = Children
    Runtime.getRuntime.addShutdownHook(Thread(() => { children.stopAll(); delete(dir) }, "bulkhead-lab-scratch"))
    sweepDead(dir.getParent)
    dir

  /** A new empty directory named `prefix` and a number. */
  def dir(prefix: String): Path = Files.createTempDirectory(root, prefix)

  /** A new empty file named `prefix`, a number and `suffix`. */
  def file(prefix: String, suffix: String): Path = Files.createTempFile(root, prefix, suffix)

  /** Deletes `path` and everything under it, as far as it can: a file a process still writes may stay. */
  def delete(path: Path): Unit =
    // A second pass takes what a process that was stopping wrote during the first.
    Iterator.range(0, 2).takeWhile(_ => Files.exists(path)).foreach { _ =>
      Try {
        val all = Files.walk(path)
        try all.iterator().asScala.toSeq.reverse.foreach(p => Try(Files.deleteIfExists(p)))
        finally all.close()
      }
    }

  /** The roots of test JVMs that were killed before their hook ran (named by their PID, no longer alive). */
  private def sweepDead(tmp: Path): Unit = Try {
    val listed = Files.list(tmp)
    try
      listed.iterator().asScala.filter(p => Files.isDirectory(p) && p.getFileName.toString.startsWith(Prefix))
        .filter(p => p.getFileName.toString.stripPrefix(Prefix).takeWhile(_ != '-').toLongOption
          .exists(pid => ProcessHandle.of(pid).isEmpty))
        .foreach(delete)
    finally listed.close()
  }
