// Compile-time replacement for Weka's PMML export of Logistic, which needs JAXB (javax.xml.bind,
// not part of Java 11+).  J48 never calls it; it is only on javac's path because Weka's class
// closure reaches weka.classifiers.functions.Logistic.  See ../../../../../j48_weka.py.
package weka.classifiers.pmml.producer;

import weka.core.Instances;

public class LogisticProducerHelper {
  public static String toPMML(Instances train, Instances structureAfterFiltering, double[][] par,
                              int numClasses) {
    throw new UnsupportedOperationException("PMML export is not compiled into this reference build");
  }
}
