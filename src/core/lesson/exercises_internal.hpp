// Wording helpers shared by the exercise files (exercises.cpp, exercises_lesson.cpp): numbers as a person writes them.
#pragma once

#include <string>
#include <vector>

namespace rv::exercise_text {

std::string count(long long n);                  // 65536 -> "65,536"
std::string sig(double v, int significant = 6);  // 0.001 -> "0.001", 6283.18530718 -> "6283.19"
std::string list(const std::vector<double>& v);  // "1, 0.1, 0.01, 0.001"
std::string shape(const std::vector<long long>& s);
std::string sub(int i);  // 12 -> "₁₂"

}  // namespace rv::exercise_text
