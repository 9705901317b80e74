package bulkhead.peers.vertx;

import bulkhead.peers.PeerOptions;

/**
 * The flags of the Vert.x pipeline, named as bulkhead's: --port (0 = any free), --port-file (written once bound),
 * --soap-endpoint and --redis-uri (what the lab points bulkhead at), and its own --soap-max-connections (bulkhead's
 * bulkhead.enrichment.soap.max-connections, 2,048; as many calls may wait for one), --redis-connections (bulkhead's 20, one per routee) and
 * --event-loops (default: one per core). A bad flag stops the start with exit code 2 and a message naming it.
 */
final class PipelineOptions {
  static final String Program = "vertx-peer";

  final int port;
  final String portFile;
  final String soapEndpoint;
  final String redisUri;
  final int soapMaxConnections;
  final int redisConnections;
  final int eventLoops;

  private PipelineOptions(int port, String portFile, String soapEndpoint, String redisUri, int soapMaxConnections,
      int redisConnections, int eventLoops) {
    this.port = port;
    this.portFile = portFile;
    this.soapEndpoint = soapEndpoint;
    this.redisUri = redisUri;
    this.soapMaxConnections = soapMaxConnections;
    this.redisConnections = redisConnections;
    this.eventLoops = eventLoops;
  }

  static PipelineOptions parse(String[] args) {
    int port = 8080;
    String portFile = "";
    String soap = "http://127.0.0.1:8089/soap";
    String redis = "redis://127.0.0.1:6379";
    int soapConnections = 2048;
    int redisConnections = 20;
    int loops = Runtime.getRuntime().availableProcessors();
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (flag.equals("--help")) {
        System.out.println("usage: " + Program + " [--port N] [--port-file FILE] [--soap-endpoint URL] "
            + "[--redis-uri URI] [--soap-max-connections N] [--redis-connections N] [--event-loops N]");
        System.exit(0);
      }
      if (i + 1 >= args.length) PeerOptions.fail(Program, flag + " needs a value");
      String value = args[++i];
      switch (flag) {
        case "--port": port = PeerOptions.number(Program, flag, value, 0, 65535); break;
        case "--port-file": portFile = value; break;
        case "--soap-endpoint":
          if (!value.startsWith("http://")) PeerOptions.fail(Program, flag + " must be an http:// URL, was '" + value + "'");
          soap = value;
          break;
        case "--redis-uri":
          if (!value.startsWith("redis://")) PeerOptions.fail(Program, flag + " must start with redis://, was '" + value + "'");
          redis = value;
          break;
        case "--soap-max-connections": soapConnections = PeerOptions.number(Program, flag, value, 1, 65536); break;
        case "--redis-connections": redisConnections = PeerOptions.number(Program, flag, value, 1, 4096); break;
        case "--event-loops": loops = PeerOptions.number(Program, flag, value, 1, 1024); break;
        default: PeerOptions.fail(Program, "unknown option '" + flag + "'");
      }
    }
    return new PipelineOptions(port, portFile, soap, redis, soapConnections, redisConnections, loops);
  }
}
