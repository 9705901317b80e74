package bulkhead.lab.testkit

import bulkhead.lab.process.Children

import java.nio.file.{Files, Path}

/**
 * A lab in miniature for the Ctrl-C test: starts, through [[Children]], a shell that starts a command of its own,
 * prints both PIDs (`child <pid> grandchild <pid>`) and waits to be interrupted.
 */
object ChildHolder:
  def main(args: Array[String]): Unit =
    val dir = Path.of(args(0))
    val pidFile = dir.resolve("grandchild.pid")
    val child = Children.start("holder", Seq("sh", "-c", s"sleep 300 & echo $$! > $pidFile; wait"), dir)
    while !Files.exists(pidFile) || Files.readString(pidFile).isBlank do Thread.sleep(20)
    println(s"child ${child.pid} grandchild ${Files.readString(pidFile).trim}")
    Console.flush()
    Thread.sleep(Long.MaxValue)
