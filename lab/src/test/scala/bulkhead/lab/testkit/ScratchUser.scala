package bulkhead.lab.testkit

import java.nio.file.Files

/**
 * A test JVM in miniature for [[Scratch]]'s spec: writes one scratch file, prints its path, then exits (`exit`) or
 * waits to be killed (`wait`).
 */
object ScratchUser:
  def main(args: Array[String]): Unit =
    val file = Files.writeString(Scratch.file("scratch-user", ".txt"), "kept until the JVM exits")
    println(s"file $file")
    Console.flush()
    if args.headOption.contains("wait") then Thread.sleep(Long.MaxValue)
